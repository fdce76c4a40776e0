// Who a request comes from, as the real server's authenticators describe it (user.Info): a name, an optional
// uid, the groups, and extra attributes. The well-known names below are the real ones.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ALL_AUTHENTICATED = 'system:authenticated';
/** Members are allowed everything when RBAC is on (the privileged-group authorizer and the cluster-admin binding). */
export const SYSTEM_MASTERS = 'system:masters';
export const NODES_GROUP = 'system:nodes';
export const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
export const KUBE_SCHEDULER = 'system:kube-scheduler';
export const KUBE_PROXY = 'system:kube-proxy';

const SA_PREFIX = 'system:serviceaccount:';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

/** The groups every service account is in: all service accounts, and those of its namespace. */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

/** "system:serviceaccount:<ns>:<name>" → its parts, or undefined for any other user name. */
export function parseServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SA_PREFIX)) return undefined;
  const parts = user.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

export function anonymousUser(): UserInfo {
  return { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };
}

/** An authenticated user also belongs to system:authenticated (the real server's group adder). */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  return u.groups.includes(ALL_AUTHENTICATED) ? u : { ...u, groups: [...u.groups, ALL_AUTHENTICATED] };
}
