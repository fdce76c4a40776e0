// Service-account bearer tokens: JWTs signed by the daemon's --service-account-private-key-file and verified
// here with --service-account-key-file (PEM; public or private keys, RSA or ECDSA, several in one file). The
// claims are the real legacy ones; the token must still belong to an existing ServiceAccount (same uid) and
// to an existing token Secret holding exactly this token (--service-account-lookup, on by default in 1.9), so
// deleting either revokes it.

import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Store } from '../../storage/store.ts';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from './user.ts';
import { STORAGE_REFS, storageKey } from '../../api/registry.ts';

export const SA_ISSUER = 'kubernetes/serviceaccount';
export const CLAIM_NAMESPACE = 'kubernetes.io/serviceaccount/namespace';
export const CLAIM_SECRET_NAME = 'kubernetes.io/serviceaccount/secret.name';
export const CLAIM_SA_NAME = 'kubernetes.io/serviceaccount/service-account.name';
export const CLAIM_SA_UID = 'kubernetes.io/serviceaccount/service-account.uid';

export class KeyFileError extends Error {}

/** Every key in a PEM file, as public keys (a private key stands for its public half). */
export function loadVerificationKeys(path: string): KeyObject[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new KeyFileError(`cannot read --service-account-key-file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const keys = parsePemKeys(text);
  if (keys.length === 0) throw new KeyFileError(`--service-account-key-file ${path}: no RSA or ECDSA key in PEM form found`);
  return keys;
}

export function parsePemKeys(text: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g)) {
    if (!/KEY/.test(m[1])) continue;
    try {
      const k = createPublicKey({ key: m[0], format: 'pem' });
      if (k.asymmetricKeyType === 'rsa' || k.asymmetricKeyType === 'ec') keys.push(k);
    } catch {
      // not a key Node can read; the real loader skips unknown blocks too
    }
  }
  return keys;
}

function b64urlJson(part: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const EC_ALG: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
const HASH: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** Claims of a JWT whose signature one of the keys verifies; undefined when not a JWT or not signed by them. */
export function verifyJwt(token: string, keys: KeyObject[]): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const header = b64urlJson(parts[0]);
  const claims = b64urlJson(parts[1]);
  if (!header || !claims || typeof header.alg !== 'string' || !HASH[header.alg]) return undefined;
  const alg = header.alg;
  const data = Buffer.from(`${parts[0]}.${parts[1]}`);
  const sig = Buffer.from(parts[2], 'base64url');
  for (const key of keys) {
    if (alg.startsWith('RS') && key.asymmetricKeyType !== 'rsa') continue;
    if (alg.startsWith('ES') && (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== EC_ALG[alg])) continue;
    const ok = alg.startsWith('ES') ? cryptoVerify(HASH[alg], data, { key, dsaEncoding: 'ieee-p1363' }, sig) : cryptoVerify(HASH[alg], data, key, sig);
    if (ok) return claims;
  }
  return undefined;
}

export type TokenCheck = { user: UserInfo } | { error: string } | undefined;

/**
 * A service-account token → its user; an error for a token that verifies but is no longer valid; undefined
 * when the token is not one of ours (another authenticator may know it).
 */
export async function authenticateServiceAccountToken(token: string, keys: KeyObject[], store: Store, lookup = true): Promise<TokenCheck> {
  const claims = verifyJwt(token, keys);
  if (!claims || claims.iss !== SA_ISSUER) return undefined;
  const ns = claims[CLAIM_NAMESPACE];
  const secretName = claims[CLAIM_SECRET_NAME];
  const saName = claims[CLAIM_SA_NAME];
  const saUid = claims[CLAIM_SA_UID];
  for (const [claim, v] of [[CLAIM_NAMESPACE, ns], [CLAIM_SECRET_NAME, secretName], [CLAIM_SA_NAME, saName], [CLAIM_SA_UID, saUid]] as const) {
    if (typeof v !== 'string' || v === '') return { error: `token has no ${claim} claim` };
  }
  const namespace = ns as string;
  const name = saName as string;
  if (typeof claims.sub === 'string' && claims.sub !== serviceAccountUsername(namespace, name)) return { error: 'sub claim does not match the service account' };
  if (lookup) {
    const secret = await store.get(storageKey(STORAGE_REFS.secrets, namespace, secretName as string));
    if (!secret || secret.value.metadata.deletionTimestamp) return { error: `Token has been invalidated: secret ${namespace}/${secretName} does not exist` };
    const data = (secret.value as { data?: Record<string, string> }).data ?? {};
    if (!data.token || Buffer.from(data.token, 'base64').toString('utf8') !== token) return { error: `Token does not match the token in secret ${namespace}/${secretName}` };
    const sa = await store.get(storageKey(STORAGE_REFS.serviceAccounts, namespace, name));
    if (!sa || sa.value.metadata.deletionTimestamp) return { error: `Token has been invalidated: service account ${namespace}/${name} does not exist` };
    if (sa.value.metadata.uid !== saUid) return { error: `Token has been invalidated: service account ${namespace}/${name} has uid ${sa.value.metadata.uid}, the token names ${saUid}` };
  }
  return { user: { name: serviceAccountUsername(namespace, name), uid: saUid as string, groups: serviceAccountGroups(namespace) } };
}
