// componentstatuses (core/v1, get and list): the health of the control plane's parts as this process knows them,
// computed on every read as the 1.9 server probes them (nothing stored). The parts are the ones a 1.9 server
// checks: the scheduler, the controller manager and each etcd server. A part this process does not run answers
// as the real probe of an absent one does (Healthy "False" with the connection error); the cluster composition
// (../cluster.ts) registers a probe for the daemon and the scheduler it starts (ServerContext.components).

import type { KubeList, KubeObject } from '../api/meta.ts';
import { apiVersionOf } from '../api/meta.ts';
import { notFound } from './errors.ts';
import type { ApiResult, ComponentProbe, ResourceRequest, ServerContext } from './context.ts';
import { selfLinkOf } from './registry/system-meta.ts';
import { compileSelectors } from './handlers/read.ts';

/** The ports the 1.9 server probes for the parts it does not run itself. */
const ABSENT: Record<string, string> = {
  scheduler: 'Get http://127.0.0.1:10251/healthz: dial tcp 127.0.0.1:10251: getsockopt: connection refused',
  'controller-manager': 'Get http://127.0.0.1:10252/healthz: dial tcp 127.0.0.1:10252: getsockopt: connection refused',
};

/** The storage: etcd answers its /health as {"health": "true"}; the in-memory store always does. */
const storageProbe = (ctx: ServerContext): ComponentProbe => async () => {
  try {
    await ctx.store.get('/registry/namespaces/default');
    return { healthy: true, message: '{"health": "true"}' };
  } catch (e) {
    return { healthy: false, message: '', error: (e as Error).message };
  }
};

async function statuses(ctx: ServerContext): Promise<KubeObject[]> {
  const probes: Array<[string, ComponentProbe]> = [
    ['controller-manager', ctx.components?.get('controller-manager') ?? (async () => ({ healthy: false, message: '', error: ABSENT['controller-manager'] }))],
    ['scheduler', ctx.components?.get('scheduler') ?? (async () => ({ healthy: false, message: '', error: ABSENT.scheduler }))],
    ['etcd-0', ctx.components?.get('etcd-0') ?? storageProbe(ctx)],
  ];
  return Promise.all(probes.map(async ([name, probe]) => {
    const r = await probe().catch((e: Error) => ({ healthy: false, message: '', error: e.message }));
    const condition: Record<string, string> = { type: 'Healthy', status: r.healthy ? 'True' : 'False', message: r.message };
    if (r.error) condition.error = r.error;
    return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, selfLink: selfLinkOf(ctxDef(ctx), undefined, name), creationTimestamp: null }, conditions: [condition] } as unknown as KubeObject;
  }));
}

const ctxDef = (ctx: ServerContext) => ctx.registry.lookup('', 'v1', 'componentstatuses')!;

/** GET of one ComponentStatus or the list of them (label and field selectors apply to the list). */
export async function readComponentStatuses(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const objects = await statuses(ctx);
  if (req.name !== undefined) {
    const one = objects.find((o) => o.metadata.name === req.name);
    if (!one) throw notFound({ group: '', resource: 'componentstatuses' }, req.name);
    return { code: 200, object: one };
  }
  const items = objects.filter(compileSelectors(req)).map(({ kind: _k, apiVersion: _a, ...rest }) => rest as KubeObject);
  const list: KubeList = { kind: 'ComponentStatusList', apiVersion: apiVersionOf(req.def), metadata: { selfLink: req.path }, items };
  return { code: 200, object: list as unknown as KubeObject };
}
