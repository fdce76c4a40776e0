// Generated hostile requests (fast-check arbitraries), one class per way a client can be wrong or malicious:
// bodies (garbage, truncated, wrong types), nesting, YAML aliases, integers beyond their fields, quantities,
// paths, methods, query values, headers, protobuf bytes, patches of all three types, oversized bodies, slow
// senders and raw HTTP. Each request is plain data; run.ts sends it and judges the answer.

import fc from 'fast-check';

export const FUZZ_NS = 'fuzz';

export interface FuzzRequest {
  /** The class that made it (counts are reported per class). */
  cls: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the head and this much of the body, then stall: the server must cut the request (408). */
  stallAfter?: number;
  /** Bytes written as they are on a raw socket (malformed HTTP). */
  raw?: Buffer;
}

const KINDS: Array<{ path: string; body: (name: string) => Record<string, unknown> }> = [
  { path: `/api/v1/namespaces/${FUZZ_NS}/configmaps`, body: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } }, data: { k: 'v' } }) },
  { path: `/api/v1/namespaces/${FUZZ_NS}/secrets`, body: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { k: 'dg==' } }) },
  { path: `/api/v1/namespaces/${FUZZ_NS}/services`, body: (name) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80, targetPort: 8080 }], selector: { a: 'b' } } }) },
  {
    path: `/api/v1/namespaces/${FUZZ_NS}/pods`,
    body: (name) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      // No node runs fuzz pods for long: they are unschedulable (a node selector no node has).
      spec: { nodeSelector: { fuzz: 'never' }, containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' }, requests: { cpu: '500m' } }, livenessProbe: { httpGet: { port: 80 } } }], volumes: [{ name: 'v', secret: { secretName: 's', defaultMode: 420 } }] },
    }),
  },
  {
    path: `/apis/apps/v1/namespaces/${FUZZ_NS}/deployments`,
    body: (name) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 0, selector: { matchLabels: { f: name } }, template: { metadata: { labels: { f: name } }, spec: { nodeSelector: { fuzz: 'never' }, containers: [{ name: 'c', image: 'x' }] } } } }),
  },
  {
    path: `/apis/batch/v1/namespaces/${FUZZ_NS}/jobs`,
    body: (name) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { parallelism: 0, backoffLimit: 1, template: { spec: { nodeSelector: { fuzz: 'never' }, restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } }),
  },
  {
    path: `/apis/batch/v1beta1/namespaces/${FUZZ_NS}/cronjobs`,
    body: (name) => ({ apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name }, spec: { schedule: '0 0 1 1 *', suspend: true, successfulJobsHistoryLimit: 1, jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } } } }),
  },
  { path: '/api/v1/namespaces', body: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${FUZZ_NS}-${name}` } }) },
];

/** Names from a small pool, so that creates mostly collide (409) and the store stays small. */
const name = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const kind = fc.integer({ min: 0, max: KINDS.length - 1 }).map((i) => KINDS[i]);

const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const JSON_CT = { 'content-type': 'application/json' };

/** Integers and numbers that do not fit the field they land in. */
const badNumber = fc.oneof(
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53 + 2, -(2 ** 63), 2 ** 64, 1e308, 1.5, -1, 0, Number.MAX_SAFE_INTEGER),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  badNumber,
  fc.string(),
  fc.constantFrom(null, true, false, [], {}, '', '-1', 'abc', '1Zi', '1e999', '0x10', '∞', '\u0000', '../..', 'a'.repeat(300)),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Sets `value` at a random path of `obj` (existing keys preferred, sometimes a new one). */
function mutate(obj: unknown, picks: number[], value: unknown, newKey: string): unknown {
  if (obj === null || typeof obj !== 'object') return value;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(obj) ? [...obj] : { ...(obj as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const [pick, ...rest] = picks;
  if (pick === undefined || keys.length === 0) return value;
  if (pick % 7 === 6) {
    (copy as Record<string, unknown>)[newKey] = value;
    return copy;
  }
  const k = keys[pick % keys.length];
  (copy as Record<string, unknown>)[k] = mutate((copy as Record<string, unknown>)[k], rest, value, newKey);
  return copy;
}

const fieldMutation = fc.record({
  k: kind,
  n: name,
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
  v: weirdValue,
  key: fc.string({ maxLength: 12 }),
  put: fc.boolean(),
}).map(({ k, n, picks, v, key, put }): FuzzRequest => {
  const body = mutate(k.body(n), picks, v, key);
  return { cls: 'fields', method: put ? 'PUT' : 'POST', path: put ? `${k.path}/${n}` : k.path, headers: JSON_CT, body: json(body) };
});

const integers = fc.record({
  k: kind,
  n: name,
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
  v: badNumber,
}).map(({ k, n, picks, v }): FuzzRequest => ({
  cls: 'integers', method: 'POST', path: k.path, headers: JSON_CT, body: json(mutate(k.body(n), picks, v, 'replicas')),
}));

const quantities = fc.record({ n: name, q: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('abc', '1Zi', '-1', '1.2.3', '1e3', '.5', '+1Ki', '1E', '0.000000001', '9999999999999999999999Ei'), badNumber) }).map(({ n, q }): FuzzRequest => ({
  cls: 'quantities', method: 'POST', path: KINDS[3].path, headers: JSON_CT,
  body: json(mutate(KINDS[3].body(n), [0, 0, 0, 0, 0, 0], q, 'x')),
}));

const deep = (depth: number, open: string, close: string, leaf: string) => open.repeat(depth) + leaf + close.repeat(depth);
const nesting = fc.record({ d: fc.integer({ min: 50, max: 5000 }), form: fc.constantFrom('json-obj', 'json-arr', 'yaml-flow', 'yaml-block', 'patch'), k: kind, n: name }).map(({ d, form, k, n }): FuzzRequest => {
  switch (form) {
    case 'json-obj': return { cls: 'nesting', method: 'POST', path: k.path, headers: JSON_CT, body: Buffer.from(`{"metadata":{"name":"${n}"},"data":${deep(d, '{"a":', '}', '1')}}`) };
    case 'json-arr': return { cls: 'nesting', method: 'POST', path: k.path, headers: JSON_CT, body: Buffer.from(deep(d, '[', ']', '')) };
    case 'yaml-flow': return { cls: 'nesting', method: 'POST', path: k.path, headers: { 'content-type': 'application/yaml' }, body: Buffer.from(`metadata: {name: ${n}}\ndata: ${deep(d, '[', ']', '')}\n`) };
    case 'yaml-block': {
      let text = `metadata:\n  name: ${n}\ndata:\n`;
      for (let i = 0; i < Math.min(d, 400); i++) text += `${' '.repeat(2 * (i + 1))}k:\n`;
      return { cls: 'nesting', method: 'POST', path: k.path, headers: { 'content-type': 'application/yaml' }, body: Buffer.from(text) };
    }
    default: return { cls: 'nesting', method: 'PATCH', path: `${k.path}/${n}`, headers: { 'content-type': 'application/merge-patch+json' }, body: Buffer.from(`{"metadata":{"labels":${deep(d, '{"a":', '}', '1')}}}`) };
  }
});

const aliases = fc.record({
  fan: fc.integer({ min: 2, max: 12 }),
  levels: fc.integer({ min: 2, max: 30 }),
  leaf: fc.integer({ min: 1, max: 2000 }),
  k: kind,
  n: name,
}).map(({ fan, levels, leaf, k, n }): FuzzRequest => {
  const lines = [`metadata: {name: ${n}}`, `x0: &a0 ["${'x'.repeat(leaf)}"]`];
  for (let i = 1; i < levels; i++) lines.push(`x${i}: &a${i} [${Array(fan).fill(`*a${i - 1}`).join(',')}]`);
  lines.push(`data: {k: *a${levels - 1}}`);
  return { cls: 'aliases', method: 'POST', path: k.path, headers: { 'content-type': 'application/yaml' }, body: Buffer.from(lines.join('\n') + '\n') };
});

const segment = fc.oneof(
  fc.constantFrom(
    'api',
    'apis',
    'v1',
    'namespaces',
    FUZZ_NS,
    'default',
    'kube-system',
    'pods',
    'configmaps',
    'status',
    'scale',
    'finalize',
    'binding',
    'rollback',
    'watch',
    'apps',
    'batch',
    '..',
    '.',
    '',
    '%2F',
    '%00',
    '%zz',
    'a%2Fb',
    '~',
    'x'.repeat(300),
  ),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
);
const paths = fc
  .record({ segs: fc.array(segment, { maxLength: 9 }), m: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'MKCOL') })
  .map(({ segs, m }): FuzzRequest => ({
    cls: 'paths',
    method: m,
    path: '/' + segs.join('/'),
    headers: m === 'GET' || m === 'HEAD' ? {} : JSON_CT,
    body: m === 'GET' || m === 'HEAD' ? undefined : json({ metadata: { name: 'a' } }),
  }));

const methods = fc
  .record({
    k: kind,
    n: fc.option(name, { nil: undefined }),
    m: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'COPY', 'LOCK', 'PURGE', 'SEARCH'),
    sub: fc.constantFrom('', '/status', '/scale', '/binding', '/finalize', '/log', '/exec'),
  })
  .map(({ k, n, m, sub }): FuzzRequest => ({
    cls: 'methods',
    method: m,
    path: `${k.path}${n ? `/${n}${sub}` : ''}`,
    headers: JSON_CT,
    body: ['GET', 'HEAD', 'TRACE'].includes(m) ? undefined : json(k.body(n ?? 'a')),
  }));

const QUERY_KEYS = [
  'watch',
  'timeoutSeconds',
  'limit',
  'continue',
  'resourceVersion',
  'labelSelector',
  'fieldSelector',
  'propagationPolicy',
  'gracePeriodSeconds',
  'orphanDependents',
  'pretty',
  'dryRun',
  'fieldValidation',
  'includeUninitialized',
  'export',
  'exact',
  'allowWatchBookmarks',
  'resourceVersionMatch',
];
const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    'true',
    'false',
    '0',
    '-1',
    '1',
    '2147484',
    '9999999999999999999',
    '1e3',
    'All',
    'Strict',
    'a=b',
    'a in (x',
    'metadata.name=a',
    'x==',
    '!',
    'Orphan',
    'Bogus',
    '%zz',
    'NaN',
  ),
  fc.string({ maxLength: 20 }),
);
const queries = fc.record({ k: kind, n: fc.option(name, { nil: undefined }), q: fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { maxLength: 5 }), m: fc.constantFrom('GET', 'GET', 'DELETE', 'POST', 'PATCH') }).map(({ k, n, q, m }): FuzzRequest => {
  // A watch that the fuzz keeps open is read for a moment and dropped: bound every watch here.
  const params = q.map(([a, b]) => `${encodeURIComponent(a)}=${encodeURIComponent(b)}`).join('&');
  const body = m === 'PATCH' ? Buffer.from('{"metadata":{"labels":{"x":"y"}}}') : m === 'GET' ? undefined : json(k.body(n ?? 'a'));
  return {
    cls: 'queries',
    method: m,
    path: `${k.path}${n ? `/${n}` : ''}?${params}`,
    headers: m === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : JSON_CT,
    body,
  };
});

const headerValue = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf;stream=watch',
    'application/json;as=Table;g=meta.k8s.io;v=v1',
    'application/json;as=Table;v=v1;g=meta.k8s.io, application/json',
    'text/html',
    '*/*',
    '*/*;q=0',
    'application/*',
    ';;;',
    'application/json; charset=utf-16',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/json-patch+json',
    'multipart/form-data; boundary=x',
    '',
  ),
  fc.string({ maxLength: 30 }).filter((s) => !/[\r\n\0]/.test(s) && /^[\x20-\x7e]*$/.test(s)),
);
const headers = fc.record({ k: kind, n: name, accept: fc.option(headerValue, { nil: undefined }), ct: fc.option(headerValue, { nil: undefined }), m: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), ua: fc.option(fc.constantFrom('curl/8', 'Mozilla/5.0', 'kubectl/v1.9'), { nil: undefined }) }).map(({ k, n, accept, ct, m, ua }): FuzzRequest => ({
  cls: 'headers', method: m, path: m === 'POST' ? k.path : `${k.path}/${n}`,
  headers: { ...(accept !== undefined ? { accept } : {}), ...(ct !== undefined ? { 'content-type': ct } : {}), ...(ua ? { 'user-agent': ua } : {}) },
  body: m === 'GET' ? undefined : json(k.body(n)),
}));

const protobufBytes = fc.record({ k: kind, magic: fc.boolean(), bytes: fc.uint8Array({ maxLength: 200 }), m: fc.constantFrom('POST', 'PUT', 'DELETE') }).map(({ k, magic, bytes, m }): FuzzRequest => ({
  cls: 'protobuf', method: m, path: m === 'POST' ? k.path : `${k.path}/a`, headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
  body: Buffer.concat([magic ? Buffer.from([0x6b, 0x38, 0x73, 0x00]) : Buffer.alloc(0), Buffer.from(bytes)]),
}));

const jsonPatchOp = fc.record({
  op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
  path: fc.oneof(
    fc.constantFrom(
      '/metadata/labels/x',
      '/spec/replicas',
      '/metadata',
      '/',
      '',
      '/spec/containers/0/image',
      '/spec/containers/-',
      '/data/k',
      '/metadata/name',
      '/status',
      '/spec/template/spec/containers/0/ports/0/containerPort',
      '/a~2b',
      '/~',
    ),
    fc.string({ maxLength: 12 }),
  ),
  value: weirdValue,
  from: fc.constantFrom('/metadata/labels', '/spec', '/x', ''),
});
const patches = fc.record({ k: kind, n: name, type: fc.constantFrom('json', 'merge', 'strategic'), ops: fc.array(jsonPatchOp, { maxLength: 4 }), mp: fc.jsonValue({ maxDepth: 4 }), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), v: weirdValue, directive: fc.constantFrom('replace', 'delete', 'merge', 'bogus', 'retainKeys') }).map(({ k, n, type, ops, mp, picks, v, directive }): FuzzRequest => {
  const path = `${k.path}/${n}`;
  if (type === 'json') return { cls: 'patches', method: 'PATCH', path, headers: { 'content-type': 'application/json-patch+json' }, body: json(ops) };
  if (type === 'merge')
    return {
      cls: 'patches',
      method: 'PATCH',
      path,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: json(picks[0] % 2 ? mp : mutate(k.body(n), picks, v, 'x')),
    };
  const smp = mutate(k.body(n), picks, v, '$patch') as Record<string, unknown>;
  if (picks[0] % 3 === 0) (smp as Record<string, unknown>).$patch = directive;
  if (picks[0] % 3 === 1) (smp as Record<string, unknown>)['$setElementOrder/containers'] = [{ name: 'c' }, v];
  return { cls: 'patches', method: 'PATCH', path, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: json(smp) };
});

const bodies = fc.record({ k: kind, n: name, kindOf: fc.constantFrom('garbage', 'truncated', 'json', 'scalar', 'empty', 'wrongkind', 'bom'), bytes: fc.uint8Array({ maxLength: 300 }), v: fc.jsonValue({ maxDepth: 4 }), cut: fc.nat() }).map(({ k, n, kindOf, bytes, v, cut }): FuzzRequest => {
  const full = JSON.stringify(k.body(n));
  let body: Buffer;
  switch (kindOf) {
    case 'garbage': body = Buffer.from(bytes); break;
    case 'truncated': body = Buffer.from(full.slice(0, cut % full.length)); break;
    case 'json': body = json(v); break;
    case 'scalar': body = Buffer.from(JSON.stringify(v === undefined ? null : v)); break;
    case 'empty': body = Buffer.alloc(0); break;
    case 'wrongkind': body = json({ ...k.body(n), kind: 'Pod', apiVersion: 'bogus/v9' }); break;
    default: body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(full)]);
  }
  return { cls: 'bodies', method: cut % 2 ? 'PUT' : 'POST', path: cut % 2 ? `${k.path}/${n}` : k.path, headers: JSON_CT, body };
});

/** Bodies beyond the 3 MiB limit, announced or chunked: 413 with a Status, read by a client that sends first. */
const oversized = fc.record({ mib: fc.integer({ min: 3, max: 6 }), k: kind }).map(({ mib, k }): FuzzRequest => ({
  cls: 'oversized',
  method: 'POST',
  path: k.path,
  headers: JSON_CT,
  body: Buffer.from(`{"metadata":{"name":"big"},"data":{"a":"${'x'.repeat(mib * 1024 * 1024)}"}}`),
}));

const slow = fc.record({ k: kind, n: name, part: fc.nat({ max: 40 }) }).map(({ k, n, part }): FuzzRequest => {
  const body = json(k.body(n));
  return { cls: 'slow', method: 'POST', path: k.path, headers: JSON_CT, body, stallAfter: Math.min(part, body.length - 1) };
});

const rawHttp = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
    'POST /api/v1/namespaces/fuzz/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'GET /api/v1 HTTP/9.9\r\n\r\n',
    `GET /api/v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`,
    'GET /api/v1\r\n\r\n',
    'POST /api/v1/namespaces/fuzz/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  ).map((s) => Buffer.from(s)),
).map((raw): FuzzRequest => ({ cls: 'raw-http', method: 'RAW', path: '', headers: {}, raw }));

/** Every class, weighted so that the expensive ones (oversized, slow) stay rare. */
export const hostileRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { arbitrary: fieldMutation, weight: 16 },
  { arbitrary: integers, weight: 8 },
  { arbitrary: quantities, weight: 5 },
  { arbitrary: nesting, weight: 4 },
  { arbitrary: aliases, weight: 4 },
  { arbitrary: paths, weight: 8 },
  { arbitrary: methods, weight: 6 },
  { arbitrary: queries, weight: 8 },
  { arbitrary: headers, weight: 8 },
  { arbitrary: protobufBytes, weight: 6 },
  { arbitrary: patches, weight: 12 },
  { arbitrary: bodies, weight: 8 },
  { arbitrary: rawHttp, weight: 3 },
  { arbitrary: oversized, weight: 1 },
  { arbitrary: slow, weight: 1 },
);
