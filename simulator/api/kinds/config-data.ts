// ConfigMap and Secret (core/v1): data keys, size, Secret type defaults and type-specific keys. Fields
// "not shown" in the spec; rules follow the real server (wire-facts 5 "Secret", "ConfigMap").

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, required, tooLong } from '../field-errors.ts';
import { isObj } from './util.ts';

const KEY = /^[-._a-zA-Z0-9]+$/;
const KEY_MAX = 253;
const DATA_MAX_BYTES = 1024 * 1024;

/** Problems with one data key: the real IsConfigMapKey. */
export function configKeyErrors(key: string): string[] {
  const out: string[] = [];
  if (key.length > KEY_MAX) out.push(`must be no more than ${KEY_MAX} characters`);
  if (!KEY.test(key)) out.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  if (key === '.' || key === '..') out.push(`must not be '${key}'`);
  else if (key.startsWith('..')) out.push("must not start with '..'");
  return out;
}

function validateKeys(map: unknown, field: string, errs: FieldError[], size: (v: unknown) => number): number {
  let total = 0;
  if (!isObj(map)) return 0;
  // Every ConfigMap and Secret write passes here: a key-by-key loop, and the error list made only for a bad key.
  for (const k in map) {
    if (!Object.hasOwn(map, k)) continue;
    if (!(k.length <= KEY_MAX && KEY.test(k) && k !== '.' && !k.startsWith('..'))) {
      for (const m of configKeyErrors(k)) errs.push(invalidValue(`${field}[${k}]`, k, m));
    }
    total += size(map[k]);
  }
  return total;
}

const utf8Size = (v: unknown): number => (typeof v === 'string' ? Buffer.byteLength(v) : 0);
const base64Size = (v: unknown): number => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);

export function validateConfigMap(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const o = obj as KubeObject & { data?: unknown; binaryData?: unknown };
  let total = validateKeys(o.data, 'data', errs, utf8Size);
  total += validateKeys(o.binaryData, 'binaryData', errs, base64Size);
  if (isObj(o.data) && isObj(o.binaryData)) {
    for (const k of Object.keys(o.binaryData)) if (k in o.data) errs.push(invalidValue(`binaryData[${k}]`, k, 'duplicate of key present in data'));
  }
  if (total > DATA_MAX_BYTES) errs.push(tooLong('data', DATA_MAX_BYTES));
  return errs;
}

registerStrategy('ConfigMap', { validate: validateConfigMap });

/** Keys a typed Secret must carry (real ValidateSecret). */
const REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

/** stringData is write-only: merged into data (base64) on every write, as the real conversion does. */
export function defaultSecret(obj: KubeObject): void {
  const o = obj as KubeObject & { data?: Record<string, string>; stringData?: unknown; type?: string };
  if (isObj(o.stringData)) {
    o.data = { ...(o.data ?? {}) };
    for (const [k, v] of Object.entries(o.stringData)) if (typeof v === 'string') o.data[k] = Buffer.from(v, 'utf8').toString('base64');
  }
  delete o.stringData;
  if (o.type === undefined || o.type === null || o.type === '') o.type = 'Opaque';
}

export function validateSecret(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const o = obj as KubeObject & { data?: unknown; type?: string };
  const total = validateKeys(o.data, 'data', errs, base64Size);
  if (total > DATA_MAX_BYTES) errs.push(tooLong('data', DATA_MAX_BYTES));
  const data = isObj(o.data) ? o.data : {};
  for (const k of REQUIRED_KEYS[o.type ?? ''] ?? []) if (!(k in data)) errs.push(required(`data[${k}]`));
  if (o.type === 'kubernetes.io/service-account-token' && !obj.metadata.annotations?.['kubernetes.io/service-account.name']) {
    errs.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  if (o.type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data)) {
    errs.push(required('data[username]', 'must specify at least one of username or password'));
  }
  return errs;
}

registerStrategy('Secret', {
  applyDefaults: defaultSecret,
  validate: validateSecret,
  validateUpdate: (next, old) => {
    const n = (next as { type?: string }).type;
    const t = (old as { type?: string }).type;
    return n !== t ? [invalidValue('type', n ?? '', 'field is immutable')] : [];
  },
});
