// The service-account token controller (1.9 tokens_controller.go): every ServiceAccount gets a Secret of type
// kubernetes.io/service-account-token named "<account>-token-<5 random>", holding a JWT signed with
// --service-account-private-key-file (RS256 for RSA keys, ES256/384/512 by ECDSA curve), the --root-ca-file
// bundle as ca.crt and the namespace; the Secret is listed in the account's `secrets`. Token Secrets whose
// account is gone (or has another uid) are deleted; an account's deletion deletes its token Secrets; a token
// Secret's deletion removes it from the account's list. A token Secret created by a user (annotation naming an
// account) is filled in. --concurrent-serviceaccount-token-syncs workers serve each of the two queues.
//
// Queue keys carry the uids, as the real controller's do, so that work for an account or Secret that was deleted
// and re-created under the same name cannot act on the new one.

import { randomInt, sign, type KeyObject } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Informer } from '../client/informer.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { readPrivateKeyFile, readRootCAFile, type SigningKey } from './config/credential-files.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const SA_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
export const ISSUER = 'kubernetes/serviceaccount';

/** The JWT of a legacy (1.9) service-account token: header {"alg","typ"}, claims in Go's sorted-map order. */
export function serviceAccountToken(signer: SigningKey, sa: { namespace: string; name: string; uid: string }, secretName: string): string {
  const header = { alg: signer.alg, typ: 'JWT' };
  const claims = {
    iss: ISSUER,
    'kubernetes.io/serviceaccount/namespace': sa.namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': sa.name,
    'kubernetes.io/serviceaccount/service-account.uid': sa.uid,
    sub: `system:serviceaccount:${sa.namespace}:${sa.name}`,
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${jwsSignature(signer, input).toString('base64url')}`;
}

const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const HASH: Record<SigningKey['alg'], string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** A JWS signature over the signing input: PKCS#1 v1.5 for RSA, r||s (not DER) for ECDSA, as JWS requires. */
export function jwsSignature(signer: { key: KeyObject; alg: SigningKey['alg'] }, input: string): Buffer {
  const data = Buffer.from(input, 'utf8');
  if (signer.alg === 'RS256') return sign('sha256', data, signer.key);
  return sign(HASH[signer.alg], data, { key: signer.key, dsaEncoding: 'ieee-p1363' });
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
/** The real secret name generator: the prefix plus five characters of the apiserver's random alphabet. */
export function tokenSecretName(account: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += ALPHANUMS[randomInt(ALPHANUMS.length)];
  return `${`${account}-token-`.slice(0, 58)}${suffix}`;
}

type Data = Record<string, string>;
const dataOf = (s: KubeObject): Data => ((s as { data?: Data }).data ?? {}) as Data;
const typeOf = (s: KubeObject): string | undefined => (s as { type?: string }).type;
const secretsOf = (sa: KubeObject): Array<{ name?: string }> => ((sa as { secrets?: Array<{ name?: string }> }).secrets ?? []) as Array<{ name?: string }>;

/** Whether secret is a token Secret of sa (annotation name, and uid when the annotation carries one). */
export function isTokenSecretOf(secret: KubeObject, sa: KubeObject): boolean {
  if (typeOf(secret) !== SA_TOKEN_TYPE) return false;
  const a = secret.metadata.annotations ?? {};
  if (a[SA_NAME_ANNOTATION] !== sa.metadata.name) return false;
  const uid = a[SA_UID_ANNOTATION];
  return !uid || uid === sa.metadata.uid;
}

interface AccountKey {
  namespace: string;
  name: string;
  uid: string;
}
interface SecretKey {
  namespace: string;
  name: string;
  uid: string;
  saName: string;
  saUid: string;
}
const splitKey = (k: string) => JSON.parse(k) as string[];

export class ServiceAccountTokenController implements Controller {
  readonly name = 'serviceaccount-token';
  private signer!: SigningKey;
  private rootCA: Buffer | undefined;
  readonly stats = { created: 0, deleted: 0, filled: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    // Checked at start (option-rules.ts); read again here so the controller owns its copy.
    this.signer = readPrivateKeyFile(ctx.options.string('--service-account-private-key-file'));
    const caFile = ctx.options.string('--root-ca-file');
    this.rootCA = caFile ? readRootCAFile(caFile) : undefined;
    const accounts = ctx.informers.informerFor(RESOURCE.serviceAccounts.collection());
    const secrets = ctx.informers.informerFor(RESOURCE.secrets.collection());
    const saQueue = new WorkQueue<string>({ name: 'serviceaccount_tokens_service', metrics: ctx.metrics });
    const secretQueue = new WorkQueue<string>({ name: 'serviceaccount_tokens_secret', metrics: ctx.metrics });
    const saKey = (sa: KubeObject) => JSON.stringify([sa.metadata.namespace, sa.metadata.name, sa.metadata.uid]);
    const secretKey = (s: KubeObject) => {
      const a = s.metadata.annotations ?? {};
      return JSON.stringify([s.metadata.namespace, s.metadata.name, s.metadata.uid, a[SA_NAME_ANNOTATION] ?? '', a[SA_UID_ANNOTATION] ?? '']);
    };
    accounts.addEventHandler({ onAdd: (sa) => saQueue.add(saKey(sa)), onUpdate: (_o, sa) => saQueue.add(saKey(sa)), onDelete: (sa) => saQueue.add(saKey(sa)) });
    const onSecret = (s: KubeObject) => {
      if (typeOf(s) === SA_TOKEN_TYPE) secretQueue.add(secretKey(s));
    };
    secrets.addEventHandler({ onAdd: onSecret, onUpdate: (_o, s) => onSecret(s), onDelete: onSecret });
    if (!(await accounts.waitForSync(ctx.signal)) || !(await secrets.waitForSync(ctx.signal))) return;
    const workers = Math.max(1, ctx.options.int('--concurrent-serviceaccount-token-syncs'));
    const opts = { controller: this.name, metrics: ctx.metrics, log: ctx.log };
    await Promise.all([
      runWorkers(saQueue, workers, (k) => this.syncServiceAccount(ctx, accounts, secrets, splitKey(k)), ctx.signal, opts),
      runWorkers(secretQueue, workers, (k) => this.syncSecret(ctx, accounts, secrets, splitKey(k)), ctx.signal, opts),
    ]);
  }

  /** The account, from the cache or (fetchOnMiss) the API, if it still has that uid. */
  private async account(
    ctx: ControllerContext,
    accounts: Informer,
    ns: string,
    name: string,
    uid: string,
    fetchOnMiss: boolean,
  ): Promise<KubeObject | undefined> {
    let sa = accounts.get(`${ns}/${name}`);
    if (!sa && fetchOnMiss) sa = await this.getLive(ctx, RESOURCE.serviceAccounts.object(ns, name));
    if (!sa || (uid && sa.metadata.uid !== uid)) return undefined;
    return sa;
  }

  private async getLive(ctx: ControllerContext, path: string): Promise<KubeObject | undefined> {
    try {
      return await ctx.client.get(path, undefined, ctx.signal);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  private async deleteSecret(ctx: ControllerContext, ns: string, name: string, uid: string | undefined): Promise<void> {
    try {
      await ctx.client.delete(
        RESOURCE.secrets.object(ns, name),
        { kind: 'DeleteOptions', apiVersion: 'v1', ...(uid ? { preconditions: { uid } } : {}) },
        ctx.signal,
      );
      this.stats.deleted++;
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  async syncServiceAccount(ctx: ControllerContext, accounts: Informer, secrets: Informer, [ns, name, uid]: string[]): Promise<void> {
    const key: AccountKey = { namespace: ns, name, uid };
    const sa = await this.account(ctx, accounts, ns, name, uid, false);
    if (!sa) {
      // Deleted: its token Secrets go with it.
      for (const s of secrets.list()) {
        if (s.metadata.namespace !== ns || typeOf(s) !== SA_TOKEN_TYPE) continue;
        const a = s.metadata.annotations ?? {};
        if (a[SA_NAME_ANNOTATION] === name && (!a[SA_UID_ANNOTATION] || a[SA_UID_ANNOTATION] === uid))
          await this.deleteSecret(ctx, ns, s.metadata.name!, s.metadata.uid);
      }
      return;
    }
    if (sa.metadata.deletionTimestamp) return;
    await this.ensureReferencedToken(ctx, secrets, key, sa);
  }

  private async ensureReferencedToken(ctx: ControllerContext, secrets: Informer, key: AccountKey, cached: KubeObject): Promise<void> {
    if (await this.hasReferencedToken(ctx, secrets, cached)) return;
    // The cache may lag: decide on the live account.
    const saPath = RESOURCE.serviceAccounts.object(key.namespace, key.name);
    const live = await this.getLive(ctx, saPath);
    if (!live || live.metadata.uid !== key.uid || live.metadata.deletionTimestamp) return;
    if (await this.hasReferencedToken(ctx, secrets, live)) return;
    const secretName = tokenSecretName(key.name);
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: key.namespace, annotations: { [SA_NAME_ANNOTATION]: key.name, [SA_UID_ANNOTATION]: key.uid } },
      type: SA_TOKEN_TYPE,
      data: this.tokenData(key, secretName),
    } as KubeObject;
    let created: KubeObject;
    try {
      created = await ctx.client.create(RESOURCE.secrets.collection(key.namespace), secret, ctx.signal);
    } catch (err) {
      // 403: the namespace is terminating; 404: it is gone. Nothing to do for this account.
      if (err instanceof ApiError && (err.code === 403 || err.code === 404)) return;
      throw err;
    }
    this.stats.created++;
    // Reference it from the account, retrying on conflicts against the live object.
    for (let attempt = 0; ; attempt++) {
      const cur = attempt === 0 ? live : await this.getLive(ctx, saPath);
      if (!cur || cur.metadata.uid !== key.uid) {
        await this.deleteSecret(ctx, key.namespace, secretName, created.metadata.uid);
        return;
      }
      const next = { ...cur, secrets: [...secretsOf(cur), { name: secretName }] } as KubeObject;
      try {
        await ctx.client.update(saPath, next, ctx.signal);
        return;
      } catch (err) {
        if (err instanceof ApiError && err.code === 409 && attempt < 5) continue;
        // The account could not reference it: do not leave an orphaned token behind.
        await this.deleteSecret(ctx, key.namespace, secretName, created.metadata.uid);
        if (err instanceof ApiError && err.code === 404) return;
        throw err;
      }
    }
  }

  private async hasReferencedToken(ctx: ControllerContext, secrets: Informer, sa: KubeObject): Promise<boolean> {
    for (const ref of secretsOf(sa)) {
      if (!ref.name) continue;
      let s = secrets.get(`${sa.metadata.namespace}/${ref.name}`);
      if (!s) s = await this.getLive(ctx, RESOURCE.secrets.object(sa.metadata.namespace!, ref.name));
      if (s && !s.metadata.deletionTimestamp && isTokenSecretOf(s, sa)) return true;
    }
    return false;
  }

  private tokenData(sa: AccountKey, secretName: string): Data {
    const data: Data = {
      token: Buffer.from(serviceAccountToken(this.signer, sa, secretName)).toString('base64'),
      namespace: Buffer.from(sa.namespace).toString('base64'),
    };
    if (this.rootCA && this.rootCA.length > 0) data['ca.crt'] = this.rootCA.toString('base64');
    return data;
  }

  async syncSecret(ctx: ControllerContext, accounts: Informer, secrets: Informer, [ns, name, uid, saName, saUid]: string[]): Promise<void> {
    const key: SecretKey = { namespace: ns, name, uid, saName, saUid };
    const cached = secrets.get(`${ns}/${name}`);
    const secret = cached && cached.metadata.uid === uid ? cached : undefined;
    if (!secret) {
      // Deleted: drop the reference from its account.
      const sa = await this.account(ctx, accounts, ns, saName, saUid, false);
      if (sa) await this.removeReference(ctx, key);
      return;
    }
    if (secret.metadata.deletionTimestamp) return;
    const sa = await this.account(ctx, accounts, ns, saName, saUid, true);
    if (!sa) {
      await this.deleteSecret(ctx, ns, name, uid);
      return;
    }
    await this.fillIfNeeded(ctx, sa, secret);
  }

  /** A token Secret missing its token or namespace, or whose ca.crt differs from the root CA, is completed. */
  private async fillIfNeeded(ctx: ControllerContext, sa: KubeObject, secret: KubeObject): Promise<void> {
    const needs = (s: KubeObject) => {
      const d = dataOf(s);
      const ca = this.rootCA && this.rootCA.length > 0 && d['ca.crt'] !== this.rootCA.toString('base64');
      return !!ca || !d.namespace || !d.token;
    };
    if (!needs(secret)) return;
    const path = RESOURCE.secrets.object(secret.metadata.namespace!, secret.metadata.name!);
    const live = await this.getLive(ctx, path);
    if (!live || live.metadata.uid !== secret.metadata.uid || !needs(live)) return;
    const d = { ...dataOf(live) };
    const key = { namespace: sa.metadata.namespace!, name: sa.metadata.name!, uid: sa.metadata.uid! };
    if (this.rootCA && this.rootCA.length > 0) d['ca.crt'] = this.rootCA.toString('base64');
    if (!d.namespace) d.namespace = Buffer.from(key.namespace).toString('base64');
    if (!d.token) d.token = Buffer.from(serviceAccountToken(this.signer, key, live.metadata.name!)).toString('base64');
    const annotations = { ...(live.metadata.annotations ?? {}), [SA_NAME_ANNOTATION]: key.name, [SA_UID_ANNOTATION]: key.uid };
    try {
      await ctx.client.update(path, { ...live, metadata: { ...live.metadata, annotations }, data: d } as KubeObject, ctx.signal);
      this.stats.filled++;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err; // 409: requeued with backoff, the next try reads the new version
    }
  }

  private async removeReference(ctx: ControllerContext, key: SecretKey): Promise<void> {
    const saPath = RESOURCE.serviceAccounts.object(key.namespace, key.saName);
    for (let attempt = 0; ; attempt++) {
      const sa = await this.getLive(ctx, saPath);
      if (!sa || (key.saUid && sa.metadata.uid !== key.saUid)) return;
      const refs = secretsOf(sa);
      if (!refs.some((r) => r.name === key.name)) return;
      try {
        await ctx.client.update(saPath, { ...sa, secrets: refs.filter((r) => r.name !== key.name) } as KubeObject, ctx.signal);
        return;
      } catch (err) {
        if (err instanceof ApiError && err.code === 409 && attempt < 5) continue;
        if (err instanceof ApiError && err.code === 404) return;
        throw err;
      }
    }
  }
}

export const serviceAccountTokenController = (): Controller => new ServiceAccountTokenController();
