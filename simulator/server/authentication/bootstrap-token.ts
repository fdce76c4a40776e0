// Bootstrap tokens (--enable-bootstrap-token-auth, 1.9): `<id>.<secret>` bearer tokens kept as Secrets of type
// bootstrap.kubernetes.io/token named bootstrap-token-<id> in kube-system, usable for authentication when
// usage-bootstrap-authentication is "true" and not past their expiration. The user is system:bootstrap:<id> in
// system:bootstrappers and the token's auth-extra-groups (each of which must start with system:bootstrappers:).

import type { Store } from '../../storage/store.ts';
import type { UserInfo } from './user.ts';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const SECRET_TYPE = 'bootstrap.kubernetes.io/token';

const field = (data: Record<string, unknown>, key: string): string | undefined =>
  typeof data[key] === 'string' ? Buffer.from(data[key] as string, 'base64').toString('utf8') : undefined;

/** The user of a bootstrap token; undefined when the token is not one or not valid (the next authenticator tries). */
export async function authenticateBootstrapToken(token: string, store: Store, now: Date = new Date()): Promise<UserInfo | undefined> {
  const m = TOKEN.exec(token);
  if (!m) return undefined;
  const [, id, secret] = m;
  const stored = await store.get(`/registry/secrets/kube-system/bootstrap-token-${id}`);
  const obj = stored?.value as { type?: string; data?: Record<string, unknown>; metadata: { deletionTimestamp?: string } } | undefined;
  if (!obj || obj.type !== SECRET_TYPE || obj.metadata.deletionTimestamp) return undefined;
  const data = obj.data ?? {};
  if (field(data, 'token-id') !== id || field(data, 'token-secret') !== secret) return undefined;
  if (field(data, 'usage-bootstrap-authentication') !== 'true') return undefined;
  const expiration = field(data, 'expiration');
  if (expiration !== undefined) {
    const t = Date.parse(expiration);
    if (Number.isNaN(t) || t < now.getTime()) return undefined;
  }
  const extra = (field(data, 'auth-extra-groups') ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
  if (extra.some((g) => !/^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/.test(g))) return undefined;
  return { name: `system:bootstrap:${id}`, groups: ['system:bootstrappers', ...extra] };
}
