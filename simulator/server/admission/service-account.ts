// ServiceAccount (the 1.9 admission plugin, in the recommended --admission-control list). On a pod create:
//   - a pod naming no service account runs as "default" (spec.serviceAccountName);
//   - the account must exist: else 403 "service account NS/NAME was not found, retry after the service account is
//     created" (for "default" the lookup is retried for a while, as 1.9 does: the controller makes it);
//   - unless automountServiceAccountToken is false (the pod's setting first, then the account's), the account's
//     first referenced token Secret is mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every
//     container and init container that has nothing mounted there, through a secret volume named after the
//     Secret (made unique when the name is taken); an account without a token yet answers 1.9's ServerTimeout
//     "No API token found for service account ..." (after the same wait as for the default account, below);
//   - a pod with no imagePullSecrets gets the account's;
//   - a mirror pod (annotation kubernetes.io/config.mirror) may reference neither a service account nor secrets.
// The annotation kubernetes.io/enforce-mountable-secrets on an account limits the secrets its pods may reference to
// those it lists, as 1.9 does.

import type { KubeObject } from '../../api/meta.ts';
import { STORAGE_REFS, storageKey } from '../../api/registry.ts';
import { ApiError, forbidden } from '../errors.ts';
import type { AdmissionAttributes, AdmissionHook } from './attributes.ts';
import type { ServerContext } from '../context.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const ENFORCE_MOUNTABLE = 'kubernetes.io/enforce-mountable-secrets';
const TOKEN_TYPE = 'kubernetes.io/service-account-token';
/**
 * How long a pod create waits for the default account and for an account's token. 1.9 tries the default account
 * 10 times, 100-200 ms apart (1-2 s), and a token not at all; here the daemon that makes both may share a busy
 * 2-core machine (or this very process) with the server, and a test that creates a namespace and a pod at once
 * should not race it: 5 s, polled every 100 ms, after which the answer is 1.9's.
 */
const LOOKUP_PAUSE_MS = 100;
const LOOKUP_ATTEMPTS = 50;

interface Ref { name?: string }
interface Account extends KubeObject { secrets?: Ref[]; imagePullSecrets?: Ref[]; automountServiceAccountToken?: boolean }
interface Mount { name: string; mountPath: string; readOnly?: boolean }
interface EnvVar { name?: string; valueFrom?: { secretKeyRef?: { name?: string } } }
interface Container { name?: string; env?: EnvVar[]; volumeMounts?: Mount[] }
interface Volume { name: string; secret?: { secretName?: string; defaultMode?: number } }
interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  imagePullSecrets?: Ref[];
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function serviceAccountAdmission(ctx: ServerContext): AdmissionHook {
  const read = async (ref: (typeof STORAGE_REFS)['serviceAccounts' | 'secrets'], ns: string, name: string) => (await ctx.store.get(storageKey(ref, ns, name)))?.value as KubeObject | undefined;

  /** The account's first referenced Secret that is one of its tokens (in the order the account lists them). */
  const tokenOf = async (ns: string, account: Account): Promise<string | undefined> => {
    for (const ref of account.secrets ?? []) {
      if (!ref.name) continue;
      const secret = (await read(STORAGE_REFS.secrets, ns, ref.name)) as (KubeObject & { type?: string }) | undefined;
      const annotations = secret?.metadata.annotations ?? {};
      if (secret?.type !== TOKEN_TYPE || annotations['kubernetes.io/service-account.name'] !== account.metadata.name) continue;
      const uid = annotations['kubernetes.io/service-account.uid'];
      if (uid && uid !== account.metadata.uid) continue;
      return ref.name;
    }
    return undefined;
  };

  return async (attrs: AdmissionAttributes) => {
    if (attrs.operation !== 'CREATE' || attrs.def.group !== '' || attrs.def.resource !== 'pods' || attrs.subresource || !attrs.object) return;
    const pod = attrs.object;
    const ns = attrs.namespace ?? '';
    const spec = (pod.spec ??= {}) as PodSpec;
    const gr = { group: '', resource: 'pods' };
    const refuse = (why: string): never => {
      throw forbidden(gr, attrs.name, why);
    };
    if (pod.metadata.annotations?.[MIRROR_ANNOTATION] !== undefined) {
      if (spec.serviceAccountName) refuse('a mirror pod may not reference service accounts');
      if (secretNames(spec).length) refuse('a mirror pod may not reference secrets');
      return;
    }
    spec.serviceAccountName ||= DEFAULT_SERVICE_ACCOUNT;
    const name = spec.serviceAccountName;
    let account: Account | undefined;
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? LOOKUP_ATTEMPTS : 1;
    for (let i = 0; i < attempts && !account; i++) {
      if (i) await pause(LOOKUP_PAUSE_MS);
      account = (await read(STORAGE_REFS.serviceAccounts, ns, name)) as Account | undefined;
    }
    if (!account) refuse(`service account ${ns}/${name} was not found, retry after the service account is created`);
    const found = account!;
    // The v1 field kept for old clients says the same (1.9's conversion fills it from serviceAccountName).
    spec.serviceAccount = name;

    if (found.metadata.annotations?.[ENFORCE_MOUNTABLE] === 'true') limitSecretReferences(found, spec, refuse);

    const automount = spec.automountServiceAccountToken ?? found.automountServiceAccountToken ?? true;
    if (automount) {
      let token = await tokenOf(ns, found);
      for (let i = 1; i < LOOKUP_ATTEMPTS && !token; i++) {
        await pause(LOOKUP_PAUSE_MS);
        const again = (await read(STORAGE_REFS.serviceAccounts, ns, name)) as Account | undefined;
        if (again) token = await tokenOf(ns, again);
      }
      if (!token) {
        throw new ApiError(500, 'ServerTimeout', `No API token found for service account "${name}", retry after the token is automatically created and added to the service account`, {
          name: 'create pod',
          kind: 'serviceaccounts',
          retryAfterSeconds: 1,
        });
      }
      mountToken(spec, token);
    }
    if (!spec.imagePullSecrets?.length && found.imagePullSecrets?.length) spec.imagePullSecrets = found.imagePullSecrets.map((r) => ({ name: r.name }));
    attrs.mutated = true;
  };
}

function secretNames(spec: PodSpec): string[] {
  const names: string[] = [];
  for (const v of spec.volumes ?? []) if (v.secret?.secretName) names.push(v.secret.secretName);
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef?.name) names.push(e.valueFrom.secretKeyRef.name);
  }
  for (const r of spec.imagePullSecrets ?? []) if (r.name) names.push(r.name);
  return names;
}

function limitSecretReferences(account: Account, spec: PodSpec, refuse: (why: string) => never): void {
  const mountable = new Set((account.secrets ?? []).map((r) => r.name));
  const sa = account.metadata.name;
  for (const v of spec.volumes ?? []) {
    const s = v.secret?.secretName;
    if (s !== undefined && !mountable.has(s)) refuse(`volume with secret.secretName="${s}" is not allowed because service account ${sa} does not reference that secret`);
  }
  const envs = (list: Container[] | undefined, what: string) => {
    for (const c of list ?? []) {
      for (const e of c.env ?? []) {
        const s = e.valueFrom?.secretKeyRef?.name;
        if (s !== undefined && !mountable.has(s)) refuse(`${what} ${c.name} with envVar ${e.name} referencing secret.secretName="${s}" is not allowed because service account ${sa} does not reference that secret`);
      }
    }
  };
  envs(spec.initContainers, 'init container');
  envs(spec.containers, 'container');
  const pull = new Set((account.imagePullSecrets ?? []).map((r) => r.name));
  (spec.imagePullSecrets ?? []).forEach((r, i) => {
    if (!pull.has(r.name)) refuse(`imagePullSecrets[${i}].name="${r.name}" is not allowed because service account ${sa} does not reference that imagePullSecret`);
  });
}

/** Mounts Secret `token` at the token path in every container without a mount there; adds its volume if used. */
function mountToken(spec: PodSpec, token: string): void {
  const volumes = (spec.volumes ??= []);
  const existing = volumes.find((v) => v.secret?.secretName === token);
  let volumeName = existing?.name ?? token;
  if (!existing && volumes.some((v) => v.name === volumeName)) {
    const taken = new Set(volumes.map((v) => v.name));
    while (taken.has(volumeName)) volumeName = `${token}-${Math.random().toString(36).slice(2, 7)}`;
  }
  let used = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
    (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
    used = true;
  }
  // 420 (0644) is the secret volume's default mode, which 1.9 writes on the stored pod.
  if (!existing && used) volumes.push({ name: volumeName, secret: { secretName: token, defaultMode: 420 } });
  if (!volumes.length) delete spec.volumes;
}
