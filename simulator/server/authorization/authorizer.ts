// The authorizer contract every mode implements (the real server's authorizer.Authorizer and RuleResolver):
// given who asks and what the request is (its attributes), allow, deny, or have no opinion. The modes of
// --authorization-mode are chained as the real union authorizer chains them: the first that allows or denies
// decides; when none has an opinion the request is forbidden. The access-review endpoints
// (authorization.k8s.io/v1) ask the same authorizer, so their answers are the server's real decisions.

import type { UserInfo } from '../authentication/user.ts';
import { SYSTEM_MASTERS } from '../authentication/user.ts';

/** What a request asks to do, as the real request-info resolver derives it (see request-attributes.ts). */
export interface Attributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, impersonate, ... or the lower-case HTTP method of a non-resource request. */
  verb: string;
  /** True for /api/v1/... and /apis/<group>/<version>/... resource paths. */
  resourceRequest: boolean;
  /** Resource requests. */
  namespace?: string;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** Non-resource requests: the URL path. */
  path?: string;
}

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizerDecision {
  decision: Decision;
  /** Why (empty when there is nothing to say); shown in access reviews. */
  reason: string;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/** What a user may do in a namespace (SelfSubjectRulesReview). */
export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when some authorizer in the chain cannot enumerate its rules. */
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  /** The mode name as --authorization-mode spells it (AlwaysAllow, RBAC, ...). */
  readonly mode: string;
  authorize(attrs: Attributes): Promise<AuthorizerDecision> | AuthorizerDecision;
  /** The rules this authorizer grants the user in the namespace ("" = cluster scope). */
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> | RulesResult;
}

const EVERYTHING: RulesResult = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

/** Allows every request (the default, as the real server's default mode was). */
export const alwaysAllow: Authorizer = {
  mode: 'AlwaysAllow',
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => structuredClone(EVERYTHING),
};

/** Has an opinion on nothing, so alone it forbids everything (the real AlwaysDeny mode). */
export const alwaysDeny: Authorizer = {
  mode: 'AlwaysDeny',
  authorize: () => ({ decision: 'no-opinion', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** Members of system:masters may do anything; put in front of RBAC as the real server does. */
export const privilegedGroups: Authorizer = {
  mode: 'PrivilegedGroups',
  authorize: (a) => (a.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' }),
  rulesFor: (user) => (user.groups.includes(SYSTEM_MASTERS) ? structuredClone(EVERYTHING) : { resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** The chain of --authorization-mode: first allow or deny decides; reasons of no-opinions are joined. */
export function unionAuthorizer(chain: Authorizer[]): Authorizer {
  if (chain.length === 1) return chain[0];
  return {
    mode: chain.map((a) => a.mode).join(','),
    async authorize(attrs) {
      const reasons: string[] = [];
      for (const a of chain) {
        const d = await a.authorize(attrs);
        if (d.decision !== 'no-opinion') return d;
        if (d.reason) reasons.push(d.reason);
      }
      return { decision: 'no-opinion', reason: reasons.join('\n') };
    },
    async rulesFor(user, namespace) {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const a of chain) {
        const r = await a.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        if (r.incomplete) out.incomplete = true;
        if (r.evaluationError) errors.push(r.evaluationError);
      }
      if (errors.length) out.evaluationError = errors.join(', ');
      return out;
    },
  };
}

/** True when the decision lets the request through. */
export function isAllowed(d: AuthorizerDecision): boolean {
  return d.decision === 'allow';
}

/**
 * The real server's forbidden message: `User "u" cannot list configmaps in the namespace "ns"`,
 * `... cannot get deployments.apps/status at the cluster scope`, `... cannot get path "/x"`.
 */
export function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.resourceRequest) return `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path ?? '')}`;
  let resource = a.resource ?? '';
  if (a.apiGroup) resource += `.${a.apiGroup}`;
  if (a.subresource) resource += `/${a.subresource}`;
  if (a.namespace) return `User ${JSON.stringify(user)} cannot ${a.verb} ${resource} in the namespace ${JSON.stringify(a.namespace)}`;
  return `User ${JSON.stringify(user)} cannot ${a.verb} ${resource} at the cluster scope`;
}
