// The authentication chain of the API server, as the real one is built from its flags:
//   x509 client certificates (--client-ca-file): user = CN, groups = O;
//   bearer tokens: static ones (--token-auth-file), then service-account JWTs (--service-account-key-file);
//   anonymous (system:anonymous, group system:unauthenticated) when no credentials were presented, unless
//   --anonymous-auth=false.
// Credentials that are presented but not accepted (an unknown token, a certificate the CA did not sign) are
// an error — 401 Unauthorized — never anonymous, like the real fail-on-error union. Authenticated users also
// get the group system:authenticated.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { KeyObject } from 'node:crypto';
import type { Store } from '../../storage/store.ts';
import { anonymousUser, withAuthenticatedGroup, type UserInfo } from './user.ts';
import { authenticateServiceAccountToken } from './service-account.ts';
import { authenticateBootstrapToken } from './bootstrap-token.ts';

export interface AuthenticationConfig {
  /** Client certificates are verified against this CA (the TLS server requests them). */
  clientCa?: boolean;
  /** --token-auth-file, parsed. */
  tokens?: Map<string, UserInfo>;
  /** --service-account-key-file, parsed. */
  serviceAccountKeys?: KeyObject[];
  /** --service-account-lookup (default true). */
  serviceAccountLookup?: boolean;
  /** --anonymous-auth (default true). */
  anonymous: boolean;
  /** --enable-bootstrap-token-auth (default false): bootstrap-token Secrets in kube-system (bootstrap-token.ts). */
  bootstrapTokens?: boolean;
}

export type AuthenticationResult = { user: UserInfo; credential: 'x509' | 'token' | 'service-account' | 'anonymous' | 'none' } | { error: string };


function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const parts = h.trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  const token = parts.slice(1).join(' ').trim();
  return token === '' ? undefined : token;
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function clientCertificate(req: IncomingMessage, cfg: AuthenticationConfig): AuthenticationResult | undefined {
  if (!cfg.clientCa) return undefined;
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  if (!socket.authorized) return { error: `x509: certificate signed by unknown authority (${String(socket.authorizationError ?? 'not verified')})` };
  const eku = (cert as { ext_key_usage?: string[] }).ext_key_usage;
  if (eku && eku.length && !eku.includes('1.3.6.1.5.5.7.3.2')) return { error: 'x509: certificate specifies an incompatible key usage' };
  const cn = cert.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return { error: 'x509: certificate has no common name' };
  return { user: withAuthenticatedGroup({ name, groups: asList(cert.subject?.O) }), credential: 'x509' };
}

/**
 * A bearer token through the token authenticators in the real order: static tokens, bootstrap tokens, service
 * accounts. Also what a TokenReview asks (../token-review.ts).
 */
export async function authenticateToken(token: string, cfg: AuthenticationConfig, store: Store): Promise<{ user: UserInfo; credential: 'token' | 'service-account' } | { error: string }> {
  const known = cfg.tokens?.get(token);
  if (known) return { user: withAuthenticatedGroup(structuredClone(known)), credential: 'token' };
  if (cfg.bootstrapTokens) {
    const user = await authenticateBootstrapToken(token, store);
    if (user) return { user: withAuthenticatedGroup(user), credential: 'token' };
  }
  const errors: string[] = [];
  if (cfg.serviceAccountKeys?.length) {
    const sa = await authenticateServiceAccountToken(token, cfg.serviceAccountKeys, store, cfg.serviceAccountLookup ?? true);
    if (sa && 'user' in sa) return { user: withAuthenticatedGroup(sa.user), credential: 'service-account' };
    if (sa) errors.push(sa.error);
  }
  errors.push('invalid bearer token');
  return { error: errors.join(', ') };
}

/** Who the request comes from, or an error for credentials that were presented but not accepted. */
export async function authenticate(req: IncomingMessage, cfg: AuthenticationConfig, store: Store): Promise<AuthenticationResult> {
  const errors: string[] = [];
  const fromCert = clientCertificate(req, cfg);
  if (fromCert && 'user' in fromCert) return fromCert;
  if (fromCert) errors.push(fromCert.error);
  const token = bearerToken(req);
  if (token !== undefined) {
    const r = await authenticateToken(token, cfg, store);
    if ('user' in r) return r;
    errors.push(r.error);
  }
  if (errors.length) return { error: errors.join(', ') };
  if (cfg.anonymous) return { user: anonymousUser(), credential: 'anonymous' };
  return { error: 'no credentials' };
}
