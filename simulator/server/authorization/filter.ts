// The security filter every request passes before the handlers, in the real server's order:
// authentication (401 Unauthorized for credentials that were presented but not accepted), impersonation
// (Impersonate-User / Impersonate-Group / Impersonate-Extra-*, each authorized as the verb "impersonate"),
// then authorization of the request's attributes (403 Forbidden with the real message form).
//
// A server started without any authentication option behaves as the real server's insecure port: no
// authentication and no authorization; every request is the user system:unsecured in system:masters.

import type { IncomingMessage } from 'node:http';
import type { Store } from '../../storage/store.ts';
import { ApiError, badRequest, forbidden, qualifiedResource } from '../errors.ts';
import { authenticate, type AuthenticationConfig } from '../authentication/authenticator.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, SYSTEM_MASTERS, parseServiceAccountUsername, serviceAccountGroups, type UserInfo } from '../authentication/user.ts';
import { forbiddenMessage, isAllowed, type Attributes, type Authorizer } from './authorizer.ts';
import { requestAttributes } from './request-attributes.ts';

export interface SecurityContext {
  /** Undefined: the insecure-port behaviour (no authentication, no authorization). */
  authentication?: AuthenticationConfig;
  /** Consulted for every request when authentication is on, and by the access-review endpoints always. */
  authorizer: Authorizer;
}

/** The user of the insecure port (the real server's insecureSuperuser). */
export const UNSECURED_USER: Readonly<UserInfo> = Object.freeze({ name: 'system:unsecured', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED] });

const users = new WeakMap<IncomingMessage, UserInfo>();

/** The user authentication attributed a request to; undefined when it did not (off, or refused with 401). */
export function attributedUserOf(req: IncomingMessage): UserInfo | undefined {
  return users.get(req);
}

/** The user a request was authenticated (and possibly impersonated) as. */
export function userOf(req: IncomingMessage): UserInfo {
  return users.get(req) ?? { ...UNSECURED_USER, groups: [...UNSECURED_USER.groups] };
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

/** 403 for a denied request: `<resource> "<name>" is forbidden: User "u" cannot ...` (or `forbidden: ...` for paths). */
export function forbiddenFor(attrs: Attributes, reason: string): ApiError {
  const msg = forbiddenMessage(attrs) + (reason ? `: ${JSON.stringify(reason)}` : '');
  if (!attrs.resourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${msg}`, {});
  const gr = { group: attrs.apiGroup ?? '', resource: attrs.resource ?? '' };
  if (attrs.name) return forbidden(gr, attrs.name, msg);
  // No name (list, create, ...): the real details carry no name field at all.
  return new ApiError(403, 'Forbidden', `${qualifiedResource(gr)} is forbidden: ${msg}`, { ...(gr.group ? { group: gr.group } : {}), kind: gr.resource });
}

function headerList(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  // Node joins repeated headers with ", "; impersonated group names never contain a comma-space.
  return list.flatMap((x) => x.split(', ')).filter((x) => x !== '');
}

async function impersonate(req: IncomingMessage, user: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  const asUser = headerList(req, 'impersonate-user')[0];
  const asGroups = headerList(req, 'impersonate-group');
  const extras: Record<string, string[]> = {};
  for (const h of Object.keys(req.headers)) {
    if (h.startsWith('impersonate-extra-')) extras[decodeURIComponent(h.slice('impersonate-extra-'.length))] = headerList(req, h);
  }
  if (asUser === undefined) {
    if (asGroups.length || Object.keys(extras).length) throw badRequest('requested impersonation of groups or extra fields without impersonating a user');
    return user;
  }
  const check = async (a: Omit<Attributes, 'user'>) => {
    const attrs = { ...a, user };
    const d = await authorizer.authorize(attrs);
    if (!isAllowed(d)) throw forbiddenFor(attrs, d.reason);
  };
  const sa = parseServiceAccountUsername(asUser);
  if (sa) await check({ verb: 'impersonate', resourceRequest: true, apiGroup: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
  else await check({ verb: 'impersonate', resourceRequest: true, apiGroup: '', resource: 'users', name: asUser });
  for (const g of asGroups) await check({ verb: 'impersonate', resourceRequest: true, apiGroup: '', resource: 'groups', name: g });
  for (const [k, vs] of Object.entries(extras)) {
    for (const v of vs) await check({ verb: 'impersonate', resourceRequest: true, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: k, name: v });
  }
  const groups = [...asGroups];
  if (sa && asGroups.length === 0) groups.push(...serviceAccountGroups(sa.namespace));
  if (asUser === ANONYMOUS_USER) {
    if (!groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_UNAUTHENTICATED);
  } else if (!groups.includes(ALL_AUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  const out: UserInfo = { name: asUser, groups };
  if (Object.keys(extras).length) out.extra = extras;
  return out;
}

/** Authenticates and authorizes one request; throws the 401/403/400 ApiError to answer instead. */
export async function checkRequest(security: SecurityContext, store: Store, req: IncomingMessage): Promise<void> {
  if (!security.authentication) return;
  const result = await authenticate(req, security.authentication, store);
  if ('error' in result) throw unauthorized();
  let user = result.user;
  user = await impersonate(req, user, security.authorizer);
  users.set(req, user);
  const attrs: Attributes = { ...requestAttributes(req.method ?? 'GET', req.url ?? '/'), user };
  const d = await security.authorizer.authorize(attrs);
  if (!isAllowed(d)) throw forbiddenFor(attrs, d.reason);
}
