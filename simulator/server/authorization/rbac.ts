// --authorization-mode RBAC over the rbac.authorization.k8s.io/v1 objects (Role, ClusterRole, RoleBinding,
// ClusterRoleBinding). Like the real authorizer it reads them from a cache fed by a watch (here on the store
// itself, so a change is seen as soon as it is written), and decides:
//   - ClusterRoleBindings whose subjects match the user grant their ClusterRole's rules everywhere;
//   - for a namespaced request, RoleBindings in that namespace grant their Role's (or ClusterRole's) rules there
//     (spec 5.1: namespace-scoped access is decided on the namespace scope);
//   - a rule names "resource/subresource" separately from "resource" (spec 5.2);
//   - no rule allows → no opinion (the request is then forbidden by the chain).
// rulesFor() lists the rules that apply (SelfSubjectRulesReview).

import type { Store, StoreEvent } from '../../storage/store.ts';
import type { KubeObject } from '../../api/meta.ts';
import type { UserInfo } from '../authentication/user.ts';
import type { Attributes, Authorizer, AuthorizerDecision, NonResourceRule, ResourceRule, RulesResult } from './authorizer.ts';
import { STORAGE_REFS, storageKey } from '../../api/registry.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

interface RoleObject extends KubeObject {
  rules?: PolicyRule[] | null;
}

interface BindingObject extends KubeObject {
  subjects?: Subject[] | null;
  roleRef: { apiGroup?: string; kind: string; name: string };
}

export const RBAC_PREFIXES = {
  clusterroles: storageKey(STORAGE_REFS.clusterRoles, undefined),
  clusterrolebindings: storageKey(STORAGE_REFS.clusterRoleBindings, undefined),
  roles: storageKey(STORAGE_REFS.roles, undefined),
  rolebindings: storageKey(STORAGE_REFS.roleBindings, undefined),
} as const;

const has = (list: string[] | undefined, v: string) => (list ?? []).includes('*') || (list ?? []).includes(v);

/** Does the rule allow the request? (the real RuleAllows) */
export function ruleAllows(rule: PolicyRule, a: Omit<Attributes, 'user'>): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) {
    const path = a.path ?? '';
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.apiGroups, a.apiGroup ?? '')) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : (a.resource ?? '');
  if (!(rule.resources ?? []).some((r) => r === '*' || r === combined)) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0) return a.name !== undefined && a.name !== '' && rule.resourceNames.includes(a.name);
  return true;
}

/** Does the binding subject name this user? ServiceAccount subjects of a RoleBinding default to its namespace. */
export function subjectMatches(s: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

interface RbacObjects {
  clusterroles: Map<string, RoleObject>;
  roles: Map<string, RoleObject>;
}

/**
 * The rules a roleRef names, by the roleRef's kind (the real RBAC's GetRoleReferenceRules): a ClusterRole anywhere,
 * a Role only in a namespace's binding. Another kind names nothing.
 */
const ROLE_REFS = {
  ClusterRole: (objects: RbacObjects, name: string) => objects.clusterroles.get(name)?.rules ?? undefined,
  Role: (objects: RbacObjects, name: string, namespace: string) => (namespace ? (objects.roles.get(`${namespace}/${name}`)?.rules ?? undefined) : undefined),
};

/** The roleRef kinds a ClusterRoleBinding may name. */
const ROLE_REFS_OF_CLUSTER_BINDINGS = new Set(['ClusterRole']);

export class RbacAuthorizer implements Authorizer {
  readonly mode = 'RBAC';
  private readonly objects = {
    clusterroles: new Map<string, RoleObject>(),
    clusterrolebindings: new Map<string, BindingObject>(),
    roles: new Map<string, RoleObject>(),
    rolebindings: new Map<string, BindingObject>(),
  };
  private readonly stops: Array<() => void> = [];

  /** Fills the cache from the store and keeps it current with a watch per kind. */
  async start(store: Store): Promise<void> {
    for (const [kind, prefix] of Object.entries(RBAC_PREFIXES) as [keyof typeof RBAC_PREFIXES, string][]) {
      const map = this.objects[kind] as Map<string, KubeObject>;
      const listed = await store.list(prefix);
      for (const it of listed.items) map.set(it.key.slice(prefix.length), it.value);
      const onEvent = (ev: StoreEvent) => {
        const k = ev.key.slice(prefix.length);
        if (ev.type === 'DELETED') map.delete(k);
        else map.set(k, ev.object);
      };
      const w = store.watch(prefix, { fromRevision: listed.revision, onEvent });
      this.stops.push(() => w.stop());
    }
  }

  stop(): void {
    for (const s of this.stops.splice(0)) s();
  }

  private roleRules(ref: BindingObject['roleRef'], namespace: string): PolicyRule[] | undefined {
    const lookup = Object.hasOwn(ROLE_REFS, ref.kind) ? ROLE_REFS[ref.kind as keyof typeof ROLE_REFS] : undefined;
    return lookup?.(this.objects, ref.name, namespace);
  }

  /** Each (binding, rules) that applies to the user in the namespace ("" = cluster bindings only). */
  private *grants(user: UserInfo, namespace: string): Generator<{ binding: string; role: string; rules: PolicyRule[] }> {
    for (const b of this.objects.clusterrolebindings.values()) {
      if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, ''))) continue;
      if (!ROLE_REFS_OF_CLUSTER_BINDINGS.has(b.roleRef.kind)) continue;
      const rules = this.roleRules(b.roleRef, '');
      if (rules) yield { binding: `ClusterRoleBinding "${b.metadata.name}"`, role: `ClusterRole "${b.roleRef.name}"`, rules };
    }
    if (!namespace) return;
    const prefix = `${namespace}/`;
    for (const [key, b] of this.objects.rolebindings) {
      if (!key.startsWith(prefix)) continue;
      if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, namespace))) continue;
      const rules = this.roleRules(b.roleRef, namespace);
      if (rules) yield { binding: `RoleBinding "${b.metadata.name}/${namespace}"`, role: `${b.roleRef.kind} "${b.roleRef.name}"`, rules };
    }
  }

  authorize(a: Attributes): AuthorizerDecision {
    const namespace = a.resourceRequest ? (a.namespace ?? '') : '';
    for (const g of this.grants(a.user, namespace)) {
      if (g.rules.some((r) => ruleAllows(r, a))) return { decision: 'allow', reason: `RBAC: allowed by ${g.binding} of ${g.role} to User ${JSON.stringify(a.user.name)}` };
    }
    return { decision: 'no-opinion', reason: '' };
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const g of this.grants(user, namespace)) {
      for (const r of g.rules) {
        if (r.nonResourceURLs && r.nonResourceURLs.length) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
        else {
          const rr: ResourceRule = { verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])] };
          if (r.resourceNames && r.resourceNames.length) rr.resourceNames = [...r.resourceNames];
          resourceRules.push(rr);
        }
      }
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}
