// authorization.k8s.io/v1 access reviews (virtual kinds: POST only, nothing stored), answered from the
// server's authorizer (ctx.security.authorizer, authorization/authorizer.ts; AlwaysAllow when none is
// configured), as the real 1.9 registry does:
// - SubjectAccessReview: may a given user / groups do this? (spec.user or spec.groups required)
// - LocalSubjectAccessReview: the same, inside the path's namespace (resourceAttributes.namespace must match it;
//   nonResourceAttributes are not allowed);
// - SelfSubjectAccessReview: may I (the requesting user) do this? (`kubectl auth can-i`).
// The answer is the request's object with status {allowed, denied, reason, evaluationError}, code 201.

import type { KubeObject } from '../api/meta.ts';
import { canonicalObject } from '../api/conversion.ts';
import { badRequest, invalid, invalidValue, type FieldError } from './errors.ts';
import type { ApiResult, ResourceRequest, ServerContext } from './context.ts';
import type { Attributes } from './authorization/authorizer.ts';
import { UNSECURED_USER } from './authorization/filter.ts';
import type { UserInfo } from './authentication/user.ts';

export const ACCESS_REVIEW_KINDS = new Set(['SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview']);

type Attrs = Record<string, unknown>;

function isRecord(v: unknown): v is Attrs {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** metadata must be empty (but for the namespace of a local review and a null creationTimestamp). */
function checkEmptyMeta(obj: KubeObject, allowNamespace: boolean, errs: FieldError[]): void {
  const m = obj.metadata as Record<string, unknown>;
  const extra = Object.entries(m).filter(([k, v]) => v !== undefined && v !== null && !(allowNamespace && k === 'namespace') && !(isRecord(v) && Object.keys(v).length === 0) && !(Array.isArray(v) && v.length === 0));
  if (extra.length > 0) errs.push(invalidValue('metadata', Object.fromEntries(extra), allowNamespace ? 'must be empty except for namespace' : 'must be empty'));
}

/**
 * How each access review kind asks (the three review types of 1.9): a self review asks about the requesting user, a
 * local one about a namespace (its path's), with resource attributes only.
 */
interface ReviewKind {
  self: boolean;
  local: boolean;
}

const REVIEW_KINDS: Record<string, ReviewKind> = {
  SubjectAccessReview: { self: false, local: false },
  LocalSubjectAccessReview: { self: false, local: true },
  SelfSubjectAccessReview: { self: true, local: false },
};

export async function createAccessReview(ctx: ServerContext, req: ResourceRequest, obj: KubeObject): Promise<ApiResult> {
  const kind = req.def.kind;
  const review = REVIEW_KINDS[kind] ?? { self: false, local: false };
  const spec = isRecord(obj.spec) ? obj.spec : undefined;
  // authorization.k8s.io/v1beta1 names the user's groups `group` (v1: `groups`); nothing else differs.
  const groupsField = req.def.version === 'v1beta1' ? 'group' : 'groups';
  const errs: FieldError[] = [];
  const res = spec && isRecord(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nonRes = spec && isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  if (!spec) errs.push({ type: 'FieldValueRequired', field: 'spec' });
  else {
    if (res && nonRes) errs.push(invalidValue('spec.nonResourceAttributes', nonRes, 'cannot be specified in combination with resourceAttributes'));
    if (!res && !nonRes) errs.push(invalidValue('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
    if (!review.self && !str(spec.user) && !(Array.isArray(spec[groupsField]) && (spec[groupsField] as unknown[]).length > 0)) {
      errs.push(invalidValue('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    }
    if (review.local && nonRes) errs.push(invalidValue('spec.nonResourceAttributes', nonRes, 'disallowed on this kind of request'));
  }
  checkEmptyMeta(obj, review.local, errs);
  if (errs.length) throw invalid(kind, req.def.group, obj.metadata.name ?? '', errs);
  if (review.local) {
    const ns = str(res?.namespace) ?? '';
    if (ns !== req.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${req.namespace}`);
  }

  const user: UserInfo =
    review.self
      ? (req.user ?? { ...UNSECURED_USER, groups: [...UNSECURED_USER.groups] })
      : {
          name: str(spec!.user) ?? '',
          uid: str(spec!.uid),
          groups: Array.isArray(spec![groupsField]) ? (spec![groupsField] as unknown[]).filter((g): g is string => typeof g === 'string') : [],
          extra: isRecord(spec!.extra) ? (spec!.extra as Record<string, string[]>) : undefined,
        };
  const attrs: Attributes = res
    ? {
        user,
        resourceRequest: true,
        verb: str(res.verb) ?? '',
        namespace: str(res.namespace),
        apiGroup: str(res.group) ?? '',
        apiVersion: str(res.version),
        resource: str(res.resource),
        subresource: str(res.subresource),
        name: str(res.name),
      }
    : { user, resourceRequest: false, verb: str(nonRes!.verb) ?? '', path: str(nonRes!.path) };
  const decision = await ctx.security.authorizer.authorize(attrs);
  const status: Record<string, unknown> = { allowed: decision.decision === 'allow' };
  if (decision.decision === 'deny') status.denied = true;
  if (decision.reason) status.reason = decision.reason;
  // A self review answers with the spec it was asked (the user is not echoed), like the real registry.
  return { code: 201, object: canonicalObject({ ...obj, metadata: { ...obj.metadata, creationTimestamp: null }, status }) };
}

/**
 * SelfSubjectRulesReview (`kubectl auth can-i --list`): the rules the authorizer grants the requesting user in
 * spec.namespace (required, as in 1.9), from authorizer.rulesFor — the same rules authorize() decides with.
 */
export async function createRulesReview(ctx: ServerContext, req: ResourceRequest, obj: KubeObject): Promise<ApiResult> {
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const namespace = str(spec.namespace);
  if (!namespace) errs.push({ type: 'FieldValueRequired', field: 'spec.namespace' });
  checkEmptyMeta(obj, false, errs);
  if (errs.length) throw invalid('SelfSubjectRulesReview', req.def.group, obj.metadata.name ?? '', errs);
  const user = req.user ?? { ...UNSECURED_USER, groups: [...UNSECURED_USER.groups] };
  const rules = await ctx.security.authorizer.rulesFor(user, namespace!);
  const status: Record<string, unknown> = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  return { code: 201, object: canonicalObject({ ...obj, metadata: { ...obj.metadata, creationTimestamp: null }, status }) };
}
