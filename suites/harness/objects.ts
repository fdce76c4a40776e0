// Small helpers checks share to set up objects: create and read back, failing with a clear setup message.
import type { KubeObject, Status } from '../../simulator/api/meta.ts';
import type { CheckContext } from './check.ts';
import type { Requirement } from './discovery.ts';
import { describeResponse, fail } from './expect.ts';
import { collectionPath, fixture, objectPath, type KindRef } from './fixtures.ts';

export const CONFIGMAPS: KindRef = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true };
export const DEPLOYMENTS: KindRef = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true };

export const NEEDS_NAMESPACES: Requirement = { group: '', version: 'v1', resource: 'namespaces', verbs: ['create', 'delete'] };

/** An apps/v1 Deployment of one busybox container, pods labelled app=<name>; 0 replicas: nothing runs. */
export function deploymentBody(name: string, replicas = 0) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'busybox:1.28' }] } } },
  };
}

export function needs(ref: KindRef, verbs: string[], subresource?: string): Requirement {
  return { group: ref.group, version: ref.version, resource: ref.resource, verbs, ...(subresource ? { subresource } : {}) };
}

export async function createObject(
  ctx: CheckContext,
  ref: KindRef,
  name: string,
  ns: string | undefined,
  extra: Partial<KubeObject> = {},
): Promise<KubeObject> {
  const body = { ...fixture(ref, name, ns), ...extra };
  if (extra.metadata) body.metadata = { ...fixture(ref, name, ns).metadata, ...extra.metadata };
  const res = await ctx.client.create(collectionPath(ref, ns), body);
  if (![200, 201, 202].includes(res.status) || !res.object) fail(`setup: creating ${ref.kind} ${ns ? `${ns}/` : ''}${name} failed: ${describeResponse(res)}`);
  return res.object;
}

export async function readObject(ctx: CheckContext, ref: KindRef, name: string, ns?: string): Promise<KubeObject> {
  const res = await ctx.client.get(objectPath(ref, name, ns));
  if (res.status !== 200 || !res.object) fail(`reading ${ref.kind} ${ns ? `${ns}/` : ''}${name} failed: ${describeResponse(res)}`);
  return res.object;
}

export function isStatus(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}
