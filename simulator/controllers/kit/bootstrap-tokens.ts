// Bootstrap token Secrets (type bootstrap.kubernetes.io/token in kube-system), read the way the 1.9 bootstrap
// package reads them: name "bootstrap-token-<id>", data token-id / token-secret / expiration (RFC 3339) /
// usage-bootstrap-signing. An expiration that does not parse counts as expired, as in the real helper.

import type { KubeObject } from '../../api/meta.ts';

export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_PREFIX = 'bootstrap-token-';
const TOKEN_ID = /^[a-z0-9]{6}$/;
// Go's time.RFC3339 layout: a T, seconds, optional fraction, Z or a numeric offset.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A data value as text (data is base64); '' when absent. */
export function secretString(secret: KubeObject, key: string): string {
  const v = ((secret as { data?: Record<string, string> }).data ?? {})[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

export function isBootstrapToken(secret: KubeObject): boolean {
  return (secret as { type?: string }).type === BOOTSTRAP_TOKEN_TYPE;
}

/** When the token expires (ms since epoch); undefined when it never does; NaN when unparseable. */
export function expirationOf(secret: KubeObject): number | undefined {
  const text = secretString(secret, 'expiration');
  if (text === '') return undefined;
  return RFC3339.test(text) ? Date.parse(text) : NaN;
}

export function isExpired(secret: KubeObject, now = Date.now()): boolean {
  const exp = expirationOf(secret);
  if (exp === undefined) return false;
  return Number.isNaN(exp) || now > exp;
}

/** The token id and secret of a token that may sign cluster-info, or undefined (validateSecretForSigning). */
export function signingToken(secret: KubeObject, now = Date.now()): { id: string; secret: string } | undefined {
  if (!isBootstrapToken(secret)) return undefined;
  const name = secret.metadata.name ?? '';
  if (!name.startsWith(BOOTSTRAP_TOKEN_PREFIX)) return undefined;
  const nameId = name.slice(BOOTSTRAP_TOKEN_PREFIX.length);
  if (!TOKEN_ID.test(nameId)) return undefined;
  const id = secretString(secret, 'token-id');
  if (id === '' || id !== nameId) return undefined;
  const tokenSecret = secretString(secret, 'token-secret');
  if (tokenSecret === '') return undefined;
  if (isExpired(secret, now)) return undefined;
  if (secretString(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { id, secret: tokenSecret };
}
