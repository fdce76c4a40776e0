// MutatingAdmissionWebhook and ValidatingAdmissionWebhook (1.9, admissionregistration.k8s.io/v1beta1): every
// write is offered to the webhooks whose rules and namespaceSelector match it, as an AdmissionReview v1beta1
// POSTed over HTTPS (the configuration's caBundle verifies the server) to clientConfig.url, or to a Service's
// Endpoints (its first ready address; the Service port 443's target port, as 1.9's resolver reaches the Service on 443).
// Mutating webhooks run one after another (configurations by name, webhooks in order) and may answer a JSONPatch
// of the object in the request's version; validating webhooks run after them and may only refuse. A webhook that
// cannot be called (down, bad answer) fails the request under failurePolicy Fail (500, "failed calling admission
// webhook") and is skipped under Ignore (1.9's default).

import { randomUUID } from 'node:crypto';
import type { Agent as UndiciAgent } from 'undici';
import type { KubeObject } from '../../api/meta.ts';
import { apiVersionOf } from '../../api/meta.ts';
import { fromStorageVersion, toStorageVersion } from '../../api/conversion.ts';
import { matchesRequirements, requirementsOf, type LabelSelector } from '../../api/labels.ts';
import { applyJsonPatch } from '../../patch/json-patch.ts';
import type { JsonValue } from '../../util/json-value.ts';
import { parseJson, stringifyJson } from '../../util/int64-json.ts';
import { ApiError } from '../errors.ts';
import type { AdmissionAttributes, AdmissionHook } from './attributes.ts';
import type { ServerContext } from '../context.ts';
import { ObjectCache } from '../object-cache.ts';
import { UNSECURED_USER } from '../authorization/filter.ts';
import { hostOfUrl, resolveService } from '../service-resolver.ts';

interface Rule { operations?: string[]; apiGroups?: string[]; apiVersions?: string[]; resources?: string[] }
interface Webhook {
  name: string;
  clientConfig?: { url?: string; service?: { namespace?: string; name?: string; path?: string }; caBundle?: string };
  rules?: Rule[];
  failurePolicy?: string;
  namespaceSelector?: LabelSelector;
}

/** How long one call may take (1.9: 30 s). */
const CALL_TIMEOUT_MS = 30_000;

const anyOf = (list: string[] | undefined, value: string) => (list ?? []).some((x) => x === '*' || x === value);

/** 1.9's rule matching: operation, group, version, and resource ("pods", "pods/status", "*", "*\/status", "*\/*"). */
function ruleMatches(rule: Rule, attrs: AdmissionAttributes): boolean {
  if (!anyOf(rule.operations, attrs.operation)) return false;
  if (!anyOf(rule.apiGroups, attrs.def.group) || !anyOf(rule.apiVersions, attrs.def.version)) return false;
  const sub = attrs.subresource;
  return (rule.resources ?? []).some((r) => {
    const [res, rsub] = r.split('/');
    if (res !== '*' && res !== attrs.def.resource) return false;
    if (sub === undefined) return rsub === undefined;
    return rsub === '*' || rsub === sub;
  });
}

async function namespaceLabels(ctx: ServerContext, attrs: AdmissionAttributes): Promise<Record<string, string> | undefined> {
  if (attrs.def.group === '' && attrs.def.resource === 'namespaces') return (attrs.object ?? attrs.oldObject)?.metadata.labels ?? {};
  if (!attrs.namespace) return undefined;
  const key = `/registry/namespaces/${attrs.namespace}`;
  const ns = ctx.listers?.namespaces.get(key) ?? (await ctx.store.get(key))?.value;
  return ns?.metadata.labels ?? {};
}

async function endpointUrl(ctx: ServerContext, hook: Webhook): Promise<string> {
  const cc = hook.clientConfig ?? {};
  if (cc.url) return cc.url;
  const svc = cc.service ?? {};
  const name = svc.name ?? '';
  const at = await resolveService(ctx, svc.namespace ?? '', name, 443, true);
  if (at.ok) return `https://${hostOfUrl(at.host)}:${at.port}${svc.path ?? ''}`;
  throw new Error(at.reason === 'ServiceNotFound' ? `service "${name}" not found` : `no endpoints available for service "${name}"`);
}

function reviewRequest(attrs: AdmissionAttributes, object: KubeObject | undefined, oldObject: KubeObject | undefined): Record<string, unknown> {
  const user = attrs.user ?? UNSECURED_USER;
  return {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1beta1',
    request: {
      uid: randomUUID(),
      kind: { group: attrs.def.group, version: attrs.def.version, kind: attrs.def.kind },
      resource: { group: attrs.def.group, version: attrs.def.version, resource: attrs.def.resource },
      ...(attrs.subresource && attrs.subresource !== 'main' ? { subResource: attrs.subresource } : {}),
      name: attrs.name,
      ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
      operation: attrs.operation,
      userInfo: { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups ?? [], ...(user.extra ? { extra: user.extra } : {}) },
      object: object ?? null,
      oldObject: oldObject ?? null,
    },
  };
}

interface ReviewResponse { allowed?: boolean; status?: { code?: number; message?: string; reason?: string }; patch?: string; patchType?: string }

async function call(ctx: ServerContext, hook: Webhook, review: Record<string, unknown>): Promise<ReviewResponse> {
  const url = await endpointUrl(ctx, hook);
  if (!url.startsWith('https://')) throw new Error(`webhook url ${url} must use https`);
  const ca = hook.clientConfig?.caBundle ? Buffer.from(hook.clientConfig.caBundle, 'base64').toString('utf8') : undefined;
  // undici (about a hundred modules) loaded at the first webhook call, not with the API server's start.
  const { Agent, request } = await import('undici');
  const dispatcher: UndiciAgent = new Agent({ connect: { ...(ca ? { ca } : {}), timeout: CALL_TIMEOUT_MS } });
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: stringifyJson(review),
      dispatcher,
      headersTimeout: CALL_TIMEOUT_MS,
      bodyTimeout: CALL_TIMEOUT_MS,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`the server responded with the status code ${res.statusCode} but did not return more information`);
    const body = parseJson(text) as { response?: ReviewResponse };
    if (!body.response) throw new Error('Webhook response was absent');
    return body.response;
  } finally {
    void dispatcher.close();
  }
}

/** The Status a refusal answers with (1.9's toStatusErr): the webhook's code when it is an error code, else 400. */
function refusal(hook: Webhook, status: ReviewResponse['status']): ApiError {
  const deniedBy = `admission webhook "${hook.name}" denied the request`;
  const message = status?.message ? `${deniedBy}: ${status.message}` : status?.reason ? `${deniedBy}: ${status.reason}` : `${deniedBy} without explanation`;
  const code = status?.code && status.code >= 400 ? status.code : 400;
  return new ApiError(code, status?.reason ?? (code === 403 ? 'Forbidden' : 'BadRequest'), message);
}

function callFailed(hook: Webhook, err: unknown): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: failed calling admission webhook "${hook.name}": ${(err as Error).message}`);
}

/** The configurations of one kind, by name (1.9's order), from a cache following the store. */
class Configurations {
  private readonly cache: ObjectCache;
  constructor(private readonly ctx: ServerContext, private readonly resource: string) {
    this.cache = new ObjectCache(ctx.store, `/registry/${resource}/`);
    void this.cache.start();
  }

  async webhooks(): Promise<Webhook[]> {
    const prefix = `/registry/${this.resource}/`;
    const objects = this.cache.list(prefix) ?? (await this.ctx.store.list(prefix)).items.map((i) => i.value);
    return [...objects]
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
      .flatMap((c) => ((c as { webhooks?: Webhook[] }).webhooks ?? []));
  }

  close(): void {
    this.cache.close();
  }
}

async function matching(ctx: ServerContext, hooks: Webhook[], attrs: AdmissionAttributes): Promise<Webhook[]> {
  const out: Webhook[] = [];
  let labels: Record<string, string> | undefined | null = null;
  for (const hook of hooks) {
    if (!(hook.rules ?? []).some((r) => ruleMatches(r, attrs))) continue;
    if (hook.namespaceSelector && (attrs.namespace || attrs.def.resource === 'namespaces')) {
      if (labels === null) labels = await namespaceLabels(ctx, attrs);
      if (labels && !matchesRequirements(requirementsOf(hook.namespaceSelector), labels)) continue;
    }
    out.push(hook);
  }
  return out;
}

/** The webhooks of admissionregistration objects never see writes of those objects (1.9 exempts them). */
const exempt = (attrs: AdmissionAttributes) => attrs.def.group === 'admissionregistration.k8s.io';

export interface WebhookAdmission {
  mutating: AdmissionHook;
  validating: AdmissionHook;
  close(): void;
}

export function webhookAdmission(ctx: ServerContext): WebhookAdmission {
  const mutatingConfigs = new Configurations(ctx, 'mutatingwebhookconfigurations');
  const validatingConfigs = new Configurations(ctx, 'validatingwebhookconfigurations');
  const inRequestVersion = (attrs: AdmissionAttributes, obj: KubeObject | undefined) => (obj ? fromStorageVersion(obj, apiVersionOf(attrs.def)) : undefined);

  const mutating: AdmissionHook = async (attrs) => {
    if (exempt(attrs) || !attrs.object) return;
    const hooks = await matching(ctx, await mutatingConfigs.webhooks(), attrs);
    if (!hooks.length) return;
    let object = structuredClone(inRequestVersion(attrs, attrs.object)!);
    const oldObject = inRequestVersion(attrs, attrs.oldObject);
    for (const hook of hooks) {
      let response: ReviewResponse;
      try {
        response = await call(ctx, hook, reviewRequest(attrs, object, oldObject));
      } catch (err) {
        if (hook.failurePolicy === 'Fail') throw callFailed(hook, err);
        continue;
      }
      if (!response.allowed) throw refusal(hook, response.status);
      if (!response.patch) continue;
      if (response.patchType !== undefined && response.patchType !== 'JSONPatch') throw callFailed(hook, new Error(`unsupported patch type ${response.patchType}`));
      try {
        object = applyJsonPatch(object as unknown as JsonValue, parseJson(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonValue) as unknown as KubeObject;
      } catch (err) {
        throw new ApiError(500, 'InternalError', `Internal error occurred: ${(err as Error).message}`);
      }
      attrs.mutated = true;
    }
    if (!attrs.mutated) return;
    // Back into the storage version, in place: the object the store writes is the one the caller holds.
    const stored = toStorageVersion(object, attrs.object.apiVersion ?? apiVersionOf(attrs.def));
    const { name, namespace, uid, resourceVersion } = attrs.object.metadata;
    stored.metadata = { ...stored.metadata, name, namespace, uid, resourceVersion };
    for (const k of Object.keys(attrs.object)) delete (attrs.object as Record<string, unknown>)[k];
    Object.assign(attrs.object, stored);
  };

  const validating: AdmissionHook = async (attrs) => {
    if (exempt(attrs)) return;
    const hooks = await matching(ctx, await validatingConfigs.webhooks(), attrs);
    if (!hooks.length) return;
    const object = inRequestVersion(attrs, attrs.object);
    const oldObject = inRequestVersion(attrs, attrs.oldObject);
    // In parallel, as 1.9 calls them; the first refusal (in webhook order) answers.
    const results = await Promise.all(hooks.map(async (hook) => {
      try {
        const r = await call(ctx, hook, reviewRequest(attrs, object, oldObject));
        return r.allowed ? undefined : refusal(hook, r.status);
      } catch (err) {
        return hook.failurePolicy === 'Fail' ? callFailed(hook, err) : undefined;
      }
    }));
    const refused = results.find((r) => r !== undefined);
    if (refused) throw refused;
  };

  return { mutating, validating, close: () => (mutatingConfigs.close(), validatingConfigs.close()) };
}
