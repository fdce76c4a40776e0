// Robustness (`--suite robustness`): generated malformed requests against the check's own namespaces. Whatever
// is wrong with a request, the target answers it: never a 5xx (wire facts: a client error must never produce a
// 500), never a reset connection, never a hang; a refusal is a 4xx whose body is a Status (wire facts 2) with
// status Failure and the HTTP code. Covered:
// - bodies that do not parse in their Content-Type: JSON, YAML and protobuf, cut at any byte, with garbage;
// - a wrong JSON type in every field of the spec's field tables, on a kind the target serves;
// - integers out of any range (beyond int64, 1e400, fractions) in every integer field;
// - deep nesting (JSON arrays and objects, YAML) and YAML alias bombs;
// - an oversized body (16 MB): refused with a 4xx, or accepted (the spec shows no size limit);
// - bad values of every query parameter of the spec's table (refused with a 4xx, or ignored);
// - unknown paths, unknown subresources and methods an endpoint does not have.
// A failure is charged to the row the request exercised (the field, the query parameter, the media type or
// the verbs rule) and, for a refusal without a proper Status, to the Status rows. Every failure is a property
// failure, so it comes with the shrunk request and its curl line.
import fc from 'fast-check';
import { check, type CheckContext } from './harness/check.ts';
import { TransportError, type RawRequest, type RawResponse } from './harness/client.ts';
import { ROWS_PROPERTY, fail, rowsOf } from './harness/expect.ts';
import { SPEC_KINDS, apiVersionOf, collectionPath, fixture, hasFixture, objectPath, type KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, needs } from './harness/objects.ts';
import { specTables } from './harness/spec.ts';
import { encodeProtobuf } from './harness/protobuf.ts';
import type { FieldRow, QueryParameterRow } from '../spec-tables/index.ts';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { currentRunContext } from './harness/run-context.ts';

/** A request that gets no answer in this time is a hang. */
const HANG_MS = 15_000;
const STATUS_ROWS = ['bodyType.Status', 'field.Status.kind', 'field.Status.apiVersion', 'field.Status.status', 'field.Status.code'];
const CM_RW = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list', 'update', 'delete'])];

interface Probe extends RawRequest {
  /** What the request is, for messages. */
  what: string;
  /** Rows a wrong answer is charged to. */
  rows: string[];
  /** The spec lets the target accept this (e.g. a parameter it may ignore, a field it does not store). */
  mayAccept?: boolean;
}

/**
 * Sends a malformed request and judges the answer: no transport failure (reset, hang), no 5xx, a 2xx only when
 * allowed, and a 4xx with a Status body. Objects a tolerated 2xx created are deleted.
 */
async function judge(ctx: CheckContext, probe: Probe): Promise<RawResponse> {
  let res: RawResponse;
  try {
    res = await ctx.client.raw({ ...probe, timeoutMs: HANG_MS });
  } catch (err) {
    if (err instanceof TransportError) {
      const why = err.exchange.error ?? err.message;
      fail(`${probe.what}: no answer (${/abort|timeout/i.test(why) ? `nothing within ${HANG_MS / 1000} s: a hang` : `the connection failed: ${why}`}); a malformed request gets a 4xx Status`, probe.rows);
    }
    throw err;
  }
  if (res.status >= 500) fail(`${probe.what}: answered ${res.status} ${snippet(res)}; a malformed request is the client's fault: a 4xx with a Status, never a 5xx`, probe.rows);
  if (res.status < 400) {
    if (!probe.mayAccept) fail(`${probe.what}: answered ${res.status}, accepting it; expected a 4xx refusal with a Status`, probe.rows);
    return res;
  }
  expectFailureStatus(ctx, res, probe.what, underServedGroupVersion(ctx, probe.path));
  return res;
}

/**
 * Whether a path lies under a group version the target serves (/api/v1/..., /apis/apps/v1/...): there a refusal
 * is a Status. Elsewhere (an unknown group or version) real servers answer a plain "404 page not found".
 */
function underServedGroupVersion(ctx: CheckContext, path: string): boolean {
  const m = /^\/api\/([^/?]+)|^\/apis\/([^/?]+)\/([^/?]+)/.exec(path);
  if (!m) return false;
  const gv = m[1] !== undefined ? m[1] : `${m[2]}/${m[3]}`;
  return gv in ctx.discovery.groupVersions;
}

function snippet(res: RawResponse): string {
  return `${res.mediaType || '(no Content-Type)'} ${JSON.stringify(res.text().slice(0, 160))}`;
}

/** A 4xx under an API path carries a Status (kind Status, apiVersion v1, status Failure, code = HTTP status). */
function expectFailureStatus(ctx: CheckContext, res: RawResponse, what: string, apiPath: boolean): void {
  if (!apiPath) return;
  let body: Record<string, unknown> | undefined;
  try {
    body = res.mediaType === 'application/json' || res.mediaType.endsWith('+json') ? (JSON.parse(res.text()) as Record<string, unknown>) : undefined;
  } catch {
    body = undefined;
  }
  if (!body) {
    // Error bodies are negotiated: a protobuf or YAML Status is fine too.
    if (res.mediaType === `application/vnd.${ctx.vendor}.protobuf` || res.mediaType === 'application/yaml') return;
    fail(`${what}: answered ${res.status} with ${snippet(res)}: not a Status body`, STATUS_ROWS);
  }
  const problems: string[] = [];
  if (body.kind !== 'Status') problems.push(`kind ${JSON.stringify(body.kind)}`);
  if (body.apiVersion !== 'v1') problems.push(`apiVersion ${JSON.stringify(body.apiVersion)}`);
  if (body.status !== 'Failure') problems.push(`status ${JSON.stringify(body.status)}`);
  if (body.code !== res.status) problems.push(`code ${JSON.stringify(body.code)} (HTTP ${res.status})`);
  if (problems.length) fail(`${what}: answered ${res.status} with a body that is not a failure Status: ${problems.join(', ')}`, STATUS_ROWS);
}

/** Deletes whatever a tolerated 2xx create made. */
async function cleanUp(ctx: CheckContext, ref: KindRef, ns: string, res: RawResponse): Promise<void> {
  if (res.status >= 300) return;
  try {
    const name = (JSON.parse(res.text()) as { metadata?: { name?: string } }).metadata?.name;
    if (name) await ctx.client.delete(objectPath(ref, name, ns));
  } catch {
    // Not JSON or not an object: nothing to clean.
  }
}

// ---- bodies that do not parse ------------------------------------------------------------------------

const validJson = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value' } });
const validYaml = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  key: value\n`;

type BrokenBody = { format: 'json' | 'yaml' | 'protobuf'; how: string; body: (name: string) => Uint8Array };

const garbage = fc.uint8Array({ minLength: 1, maxLength: 64 });

function brokenBodies(): fc.Arbitrary<BrokenBody> {
  const cutJson = fc.integer({ min: 0, max: 60 }).map((n): BrokenBody => ({ format: 'json', how: `JSON cut after ${n} bytes`, body: (name) => Buffer.from(validJson(name).slice(0, n)) }));
  const junkJson = fc.constantFrom('{', '}', '[', 'nul', 'tru', '{"metadata":', '{"a":1,}', "{'a':1}", '{"a" 1}', '\u0000', '{}}', '{"kind":"ConfigMap"}x', 'NaN', '"\\ud800"').map((t): BrokenBody => ({ format: 'json', how: `JSON ${JSON.stringify(t)}`, body: () => Buffer.from(t) }));
  const bytesJson = garbage.map((b): BrokenBody => ({ format: 'json', how: `JSON of ${b.length} random bytes`, body: () => Buffer.from(b) }));
  const cutYaml = fc.integer({ min: 1, max: 70 }).map((n): BrokenBody => ({ format: 'yaml', how: `YAML cut after ${n} bytes, then ": : ["`, body: (name) => Buffer.from(`${validYaml(name).slice(0, n)}: : [`) }));
  const junkYaml = fc.constantFrom('a: b: c', '\tkind: ConfigMap', '- [', '{a: 1', 'key: "unterminated', '!!binary xyz%%', '? [\n', 'a: &x 1\nb: *y').map((t): BrokenBody => ({ format: 'yaml', how: `YAML ${JSON.stringify(t)}`, body: () => Buffer.from(t) }));
  const pbBytes = garbage.map((b): BrokenBody => ({ format: 'protobuf', how: `protobuf of ${b.length} random bytes`, body: () => Buffer.from(b) }));
  const pbMagic = garbage.map((b): BrokenBody => ({ format: 'protobuf', how: `protobuf magic then ${b.length} random bytes`, body: () => Buffer.concat([Buffer.from('k8s\u0000'), Buffer.from(b)]) }));
  const pbCut = fc.integer({ min: 0, max: 40 }).map((n): BrokenBody => ({
    format: 'protobuf',
    how: `protobuf envelope cut after ${n} bytes`,
    body: (name) => Buffer.from(encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value' } } as never)).subarray(0, n + 4),
  }));
  return fc.oneof(cutJson, junkJson, bytesJson, cutYaml, junkYaml, pbBytes, pbMagic, pbCut);
}

check(
  'robustness.malformed-bodies',
  {
    rows: ['negotiation.write-content-type', 'rule.media.request-bodies-any-type', ...STATUS_ROWS],
    requires: CM_RW,
    title: 'POST and PUT bodies that do not parse in their Content-Type (JSON, YAML, protobuf; cut, junk, random bytes) get a 4xx Status, never a 5xx, reset or hang',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const existing = ctx.uniqueName('target');
    await createObject(ctx, CONFIGMAPS, existing, ns);
    const types = { json: 'application/json', yaml: 'application/yaml', protobuf: `application/vnd.${ctx.vendor}.protobuf` };
    await ctx.forAll(fc.record({ broken: brokenBodies(), put: fc.boolean() }), async ({ broken, put }) => {
      const name = put ? existing : ctx.uniqueName('malformed');
      const path = put ? objectPath(CONFIGMAPS, existing, ns) : collectionPath(CONFIGMAPS, ns);
      const probe: Probe = {
        method: put ? 'PUT' : 'POST',
        path,
        headers: { 'Content-Type': types[broken.format], Accept: 'application/json' },
        body: broken.body(name),
        what: `${put ? 'PUT' : 'POST'} ${path} with ${broken.how} as ${types[broken.format]}`,
        rows: ['negotiation.write-content-type', 'rule.media.request-bodies-any-type'],
      };
      await judge(ctx, probe);
    }, { numRuns: Math.max(ctx.fc.numRuns * 3, 30) });
  },
);

// ---- wrong types and out-of-range integers in every field of the field tables ----------------------

const SERVER_SET_METADATA = new Set(['uid', 'resourceVersion', 'selfLink', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'continue']);

interface FieldTarget {
  row: FieldRow;
  ref: KindRef;
  /** Dotted path in the body, with numeric segments for array items. */
  path: string[];
  /** Whether the server may accept the request anyway (status and server-set fields are ignored on create). */
  ignored: boolean;
}

function kindRefOf(kind: string): KindRef | undefined {
  return SPEC_KINDS.find((k) => `${apiVersionOf(k.group, k.version)} ${k.kind}` === kind);
}

/** One target per field row: the first kind of the row the target serves, and the field's path in it. */
function fieldTargets(ctx: CheckContext): FieldTarget[] {
  const tables = specTables();
  const out: FieldTarget[] = [];
  for (const row of tables.fields) {
    if (!row.testable || !row.jsonType || row.jsonType === 'type-specific' || row.kinds.includes('protobuf envelope')) continue;
    const kinds = row.kinds.includes('*') ? ['v1 ConfigMap'] : row.kinds;
    const ref = kinds
      .map(kindRefOf)
      .find((k): k is KindRef => k !== undefined && k.namespaced && hasFixture(k.kind) && ctx.serves(needs(k, ['create'])));
    if (!ref) continue;
    const kind = `${apiVersionOf(ref.group, ref.version)} ${ref.kind}`;
    const [head, ...rest] = row.jsonPath.split('.');
    const embedded = tables.types.find((t) => t.jsonPathPrefix === head);
    let path: string[];
    if (embedded) {
      const at = embedded.embeddedAt.find((e) => e.kind === kind);
      if (!at || !at.path.endsWith('[]')) continue;
      path = [...at.path.slice(0, -2).split('.'), '0', ...rest];
    } else {
      path = row.jsonPath.split('.');
    }
    if (path.length === 0 || path[0] === '') continue;
    const ignored = path[0] === 'status' || (path[0] === 'metadata' && SERVER_SET_METADATA.has(path[1] ?? '')) || (path[0] === 'metadata' && path.length === 1);
    out.push({ row, ref, path, ignored });
  }
  return out;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur: Record<string, unknown> = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    const next = cur[k];
    if (next === null || typeof next !== 'object') cur[k] = /^\d+$/.test(path[i + 1]) ? [] : {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

/** JSON values of a type other than the field's (as JSON text, so that numbers beyond doubles stay exact). */
function wrongValues(jsonType: string): string[] {
  const t = jsonType.toLowerCase();
  const all = ['"x"', '12345', 'true', '{}', '[]', '{"a":{"b":1}}', '["x",1]'];
  if (t === 'integer') return ['"12"', 'true', '{}', '[]', '1.5'];
  if (t === 'boolean') return ['"true"', '1', '{}', '[]'];
  if (t === 'integer or percentage string') return ['true', '{}', '[]', '1.5'];
  if (t === 'string' || t === 'time' || t === 'timestamp') return ['12345', 'true', '{}', '[]'];
  if (t === 'bytes') return ['12345', 'true', '{}', '"%%% not base64 %%%"'];
  if (t === 'map of string to string') return ['"x"', '12345', '[]', '{"k":5}', '{"k":{"a":1}}'];
  if (t.endsWith('array') || t === 'list of strings' || t.startsWith('array')) return ['"x"', '12345', 'true', '{}'];
  // Objects: TypeMeta, ObjectMeta, DeploymentSpec, LabelSelector, object...
  return all.filter((v) => !v.startsWith('{'));
}

// Clearly beyond int64 (2^64, -2^64, 1e400) and fractions. Not 2^63 itself: parsed into a double it is the
// same number as 2^63-1, so a server that reads JSON numbers as doubles cannot tell the first int64 past the
// range from the last one in it.
const OUT_OF_RANGE = ['18446744073709551616', '-18446744073709551616', '1e400', '2.5'];

/**
 * Runs one property per field; when several fields fail, the first failure (with its counterexample and replay
 * token) is thrown with every failing field named and charged.
 */
async function everyField(targets: FieldTarget[], run: (target: FieldTarget) => Promise<void>): Promise<void> {
  const failures: Array<{ target: FieldTarget; err: unknown }> = [];
  for (const target of targets) {
    try {
      await run(target);
    } catch (err) {
      failures.push({ target, err });
    }
  }
  if (failures.length === 0) return;
  const first = failures[0].err as Error & Record<string, unknown>;
  if (failures.length > 1 && first instanceof Error) {
    const others = failures.slice(1).map((f) => `  ${f.target.row.id}: ${(f.err as Error).message.split('\n')[0]}`);
    first.message = `${failures.length} fields fail; the first:\n${first.message}\nthe others:\n${others.slice(0, 20).join('\n')}${others.length > 20 ? `\n  ... and ${others.length - 20} more` : ''}`;
    first[ROWS_PROPERTY] = [...new Set(failures.flatMap((f) => rowsOf(f.err) ?? [f.target.row.id]))];
  }
  throw first;
}

/** Every field gets the first values of its list: all of them at the default run count, two at the least. */
function valuesFor(ctx: CheckContext, values: string[]): string[] {
  return values.slice(0, Math.max(2, Math.ceil(ctx.fc.numRuns / 3)));
}

/** Every value, in order, for one field (a property of one run: the same requests whatever the seed). */
function sweep(ctx: CheckContext, target: FieldTarget, values: string[], send: (raw: string) => Promise<void>): Promise<void> {
  return ctx.forAll(fc.constant(target.row.id), async () => {
    for (const raw of values) await send(raw);
  }, { numRuns: 1 });
}

/** A body with `marker` at the field's path, as JSON text with the raw value spliced in. */
function bodyWith(target: FieldTarget, name: string, ns: string, raw: string): string {
  const base = fixture(target.ref, name, ns) as unknown as Record<string, unknown>;
  const marker = `@@conformance-value-${name}@@`;
  setPath(base, target.path, marker);
  return JSON.stringify(base).replace(JSON.stringify(marker), raw);
}

async function sendField(ctx: CheckContext, ns: string, target: FieldTarget, raw: string, kind: 'wrong type' | 'out of range'): Promise<void> {
  const name = ctx.uniqueName('field');
  const path = collectionPath(target.ref, ns);
  const res = await judge(ctx, {
    method: 'POST',
    path,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: bodyWith(target, name, ns, raw),
    what: `POST ${path} with ${target.path.join('.')} = ${raw} (${kind}; ${target.row.id} is ${target.row.jsonType})`,
    rows: [target.row.id],
    mayAccept: target.ignored,
  });
  await cleanUp(ctx, target.ref, ns, res);
}

check(
  'robustness.field-types',
  {
    rows: ['negotiation.write-content-type', ...STATUS_ROWS],
    requires: [NEEDS_NAMESPACES],
    title: 'a value of the wrong JSON type in any field of the spec\'s field tables gets a 4xx Status (status and server-set fields may be ignored), never a 5xx',
    timeoutSeconds: 180,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const targets = fieldTargets(ctx);
    if (targets.length === 0) ctx.skip('the target serves none of the kinds of the field tables');
    // Every field, each with values drawn by the check's seed.
    await everyField(targets, (target) => sweep(ctx, target, valuesFor(ctx, wrongValues(target.row.jsonType!)), (raw) => sendField(ctx, ns, target, raw, 'wrong type')));
  },
);

check(
  'robustness.integer-range',
  {
    rows: ['negotiation.write-content-type', ...STATUS_ROWS],
    requires: [NEEDS_NAMESPACES],
    title: 'integers beyond int64, 1e400 and fractions in any integer field of the field tables get a 4xx Status, never a 5xx or a stored wrap-around',
    timeoutSeconds: 180,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const targets = fieldTargets(ctx).filter((t) => /^integer/.test(t.row.jsonType ?? ''));
    if (targets.length === 0) ctx.skip('the target serves no kind with an integer field of the field tables');
    await everyField(targets, (target) => sweep(ctx, target, valuesFor(ctx, OUT_OF_RANGE), (raw) => sendField(ctx, ns, target, raw, 'out of range')));
  },
);

// ---- deep nesting, alias bombs, oversized bodies --------------------------------------------------------

check(
  'robustness.nesting-and-size',
  {
    rows: ['negotiation.write-content-type', 'field.ObjectMeta.annotations', ...STATUS_ROWS],
    requires: CM_RW,
    title: 'deeply nested JSON and YAML, YAML alias bombs and a 16 MB body get an answer (4xx Status; the big body may be accepted), never a 5xx, reset or hang',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = collectionPath(CONFIGMAPS, ns);
    const shapes = fc.record({
      depth: fc.integer({ min: 1_000, max: 200_000 }),
      kind: fc.constantFrom('json-array', 'json-object', 'yaml-flow', 'yaml-block'),
    });
    await ctx.forAll(shapes, async ({ depth, kind }) => {
      const name = ctx.uniqueName('deep');
      let body: string;
      let type = 'application/json';
      if (kind === 'json-array') body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","annotations":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
      else if (kind === 'json-object') body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","annotations":{"a":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}}`;
      else if (kind === 'yaml-flow') {
        type = 'application/yaml';
        body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    a: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
      } else {
        type = 'application/yaml';
        const levels = Math.min(depth, 1_000);
        body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${Array.from({ length: levels }, (_, i) => `${' '.repeat(2 + i)}k${i}:`).join('\n')} v\n`;
      }
      const res = await judge(ctx, { method: 'POST', path, headers: { 'Content-Type': type, Accept: 'application/json' }, body, what: `POST ${path} with ${kind} nested ${depth} deep (${body.length} bytes)`, rows: ['negotiation.write-content-type', 'field.ObjectMeta.annotations'] });
      await cleanUp(ctx, CONFIGMAPS, ns, res);
    }, { numRuns: Math.min(ctx.fc.numRuns, 8) });

    // A billion-laughs document: ten aliases deep, it would expand to 10^9 strings.
    const bomb = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: bomb', 'x0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i <= 9; i++) bomb.push(`x${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(',')}]`);
    bomb.push('data: *a9');
    const bombRes = await judge(ctx, { method: 'POST', path, headers: { 'Content-Type': 'application/yaml', Accept: 'application/json' }, body: `${bomb.join('\n')}\n`, what: `POST ${path} with a YAML alias bomb (10 levels of 10 aliases)`, rows: ['negotiation.write-content-type'] });
    await cleanUp(ctx, CONFIGMAPS, ns, bombRes);

    // The spec shows no body size limit: a 16 MB ConfigMap may be refused (4xx) or stored; nothing else. A server
    // may answer a body it refuses before reading all of it and then close: the answer counts, not the upload.
    const big = ctx.uniqueName('big');
    const bigBody = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: big }, data: { big: 'x'.repeat(16 * 1024 * 1024) } }));
    const what = `POST ${path} with a ${Math.round(bigBody.length / 1024 / 1024)} MB ConfigMap`;
    const answer = await uploadEarlyAnswer(path, bigBody);
    if ('error' in answer) fail(`${what}: no answer (${answer.error}); an oversized body gets a 4xx Status or is stored`, 'negotiation.write-content-type');
    if (answer.status >= 500) fail(`${what}: answered ${answer.status}; never a 5xx`, 'negotiation.write-content-type');
    if (answer.status < 300) await ctx.client.delete(objectPath(CONFIGMAPS, big, ns));
  },
);

/**
 * POSTs a large body and takes the first answer, even one the server sends before it has read the whole body
 * (and then closes the connection, which undici reports as EPIPE with the answer lost).
 */
function uploadEarlyAnswer(path: string, body: Buffer): Promise<{ status: number; body: string } | { error: string }> {
  const connection = currentRunContext()!.connection;
  const url = new URL(connection.url + path);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: { status: number; body: string } | { error: string }) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      }
    };
    const timer = setTimeout(() => {
      done({ error: `nothing within ${HANG_MS / 1000} s: a hang` });
      req.destroy();
    }, HANG_MS * 2);
    const req = send(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(body.length), ...(connection.token ? { Authorization: `Bearer ${connection.token}` } : {}) },
      ca: connection.caData,
      cert: connection.certData,
      key: connection.keyData,
      rejectUnauthorized: !connection.insecureSkipTlsVerify,
    });
    req.on('response', (res: IncomingMessage) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
    });
    // A write error after the answer arrived is the server closing early; before it, a failed connection.
    req.on('error', (err) => setTimeout(() => done({ error: `the connection failed: ${err.message}` }), 500));
    req.end(body);
  });
}

// ---- bad query values -------------------------------------------------------------------------------

const badQueryValue = (row: QueryParameterRow): fc.Arbitrary<string> => {
  const odd = fc.constantFrom('', ' ', '%', '\u00ff', '?', '&', '=', '\\', '"', '\u0000', 'null', 'undefined', '[]', '{}');
  if (row.type === 'integer') return fc.oneof(fc.constantFrom('abc', '1.5', '-1', '99999999999999999999', '-99999999999999999999', '0x10', '1e3', ''), odd);
  if (row.type === 'boolean') return fc.oneof(fc.constantFrom('maybe', '2', 'TRUE!', 'yes please', ''), odd);
  if (row.name === 'labelSelector') return fc.oneof(fc.constantFrom('===', 'a in (', '!!a', 'a b', 'a=b=c', 'a notin b', 'a in (b,', 'x'.repeat(400), '=v'), odd);
  if (row.name === 'fieldSelector') return fc.oneof(fc.constantFrom('a==b==c', 'spec.bogus=x', 'metadata.name', '=x', 'metadata.name!=', 'metadata.name=a,', '!metadata.name'), odd);
  if (row.name === 'resourceVersion') return fc.oneof(fc.constantFrom('abc', '-1', '99999999999999999999999', '1.5', '0x1'), odd);
  if (row.name === 'continue') return fc.oneof(fc.constantFrom('garbage', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', '%%%', 'a'.repeat(300)), fc.base64String({ minLength: 4, maxLength: 40 }), odd);
  if (row.name === 'propagationPolicy') return fc.oneof(fc.constantFrom('Bogus', 'orphan', 'background', 'FOREGROUND'), odd);
  return fc.oneof(fc.string({ maxLength: 20 }), odd);
};

check(
  'robustness.query-values',
  {
    rows: [...specTables().queryParameters.filter((q) => q.testable).map((q) => q.id), ...STATUS_ROWS],
    requires: CM_RW,
    title: 'a bad value of any query parameter of the spec is refused with a 4xx Status or ignored, never a 5xx, reset or hang',
    timeoutSeconds: 180,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const name = ctx.uniqueName('query');
    await createObject(ctx, CONFIGMAPS, name, ns);
    const rows = specTables().queryParameters.filter((q) => q.testable);
    for (const row of rows) {
      await ctx.forAll(badQueryValue(row), async (value) => {
        const verb = row.appliesTo.find((v) => v !== 'watch') ?? 'list';
        let method = 'GET';
        let path = collectionPath(CONFIGMAPS, ns);
        let body: string | undefined;
        let contentType: string | undefined;
        // A parameter the target ignores may turn the request into a watch: bound it.
        const query: Record<string, string> = { [row.name]: value, ...(row.name !== 'timeoutSeconds' ? { timeoutSeconds: '1' } : {}) };
        if (verb === 'get') path = objectPath(CONFIGMAPS, name, ns);
        else if (verb === 'deletecollection') method = 'GET'; // the list form of the same parameter (a collection delete would remove the check's object)
        else if (verb === 'delete') {
          // A throwaway object per request: the delete may succeed.
          const doomed = ctx.uniqueName('doomed');
          await createObject(ctx, CONFIGMAPS, doomed, ns);
          method = 'DELETE';
          path = objectPath(CONFIGMAPS, doomed, ns);
        } else if (verb === 'create') {
          method = 'POST';
          body = validJson(ctx.uniqueName('created'));
          contentType = 'application/json';
        } else if (verb === 'update' || verb === 'patch') {
          method = 'PATCH';
          path = objectPath(CONFIGMAPS, name, ns);
          body = '{"data":{"touched":"yes"}}';
          contentType = 'application/merge-patch+json';
        }
        const res = await judge(ctx, {
          method,
          path,
          query,
          headers: { Accept: 'application/json', ...(contentType ? { 'Content-Type': contentType } : {}) },
          body,
          what: `${method} ${path}?${row.name}=${encodeURIComponent(value)}`,
          rows: [row.id],
          mayAccept: true,
        });
        if (method === 'POST') await cleanUp(ctx, CONFIGMAPS, ns, res);
      }, { numRuns: 3 });
    }
  },
);

// ---- unknown paths and methods ---------------------------------------------------------------------

check(
  'robustness.paths-and-methods',
  {
    rows: ['rule.media.verbs-as-shown', 'rule.media.path-parameters', ...STATUS_ROWS],
    requires: CM_RW,
    title: 'unknown resources, groups, versions and subresources get a 404 Status; a method an endpoint does not have gets a 4xx, never a 5xx, reset or hang',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const name = ctx.uniqueName('paths');
    await createObject(ctx, CONFIGMAPS, name, ns);
    const col = collectionPath(CONFIGMAPS, ns);
    const obj = objectPath(CONFIGMAPS, name, ns);
    const word = fc.stringMatching(/^[a-z][a-z0-9]{2,12}$/).map((w) => `bogus${w}`);
    const unknownPath = fc.oneof(
      word.map((w) => `/api/v1/namespaces/${ns}/${w}`),
      word.map((w) => `/api/v1/namespaces/${ns}/${w}/x`),
      word.map((w) => `/apis/${w}.example.com/v1/${w}`),
      word.map((w) => `/apis/apps/${w}/deployments`),
      word.map((w) => `/api/${w}/namespaces`),
      word.map((w) => `${obj}/${w}`),
      fc.constant(`${obj}/status/extra/parts`),
      fc.constant(`${col}/%ZZ`),
      fc.integer({ min: 1, max: 6 }).map((n) => `/api/v1/namespaces/${ns}/configmaps/${'x'.repeat(n * 1000)}`),
    );
    const oddMethod = fc.constantFrom('PROPFIND', 'MKCOL', 'LOCK', 'COPY', 'MOVE', 'UNLOCK', 'PROPPATCH', 'SEARCH');
    await ctx.forAll(unknownPath, async (path) => {
      const res = await judge(ctx, { method: 'GET', path, headers: { Accept: 'application/json' }, what: `GET ${path}`, rows: ['rule.media.path-parameters'] });
      if (res.status !== 404 && !path.includes('%ZZ') && !(res.status === 414 || res.status === 431) && !/^\/api\/v1\/namespaces\/[^/]+\/configmaps\/x+$/.test(path)) {
        fail(`GET ${path}: answered ${res.status}; an unknown path is 404`, 'rule.media.path-parameters');
      }
    });
    const wrongVerb = fc.oneof(
      fc.constantFrom({ method: 'PUT', path: col }, { method: 'PATCH', path: col }, { method: 'POST', path: obj }, { method: 'DELETE', path: '/api/v1' }, { method: 'POST', path: '/api' }, { method: 'PUT', path: '/apis' }),
      oddMethod.map((method) => ({ method, path: col })),
      oddMethod.map((method) => ({ method, path: obj })),
    );
    await ctx.forAll(wrongVerb, async ({ method, path }) => {
      const body = validJson(name);
      await judge(ctx, { method, path, headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, body, what: `${method} ${path}`, rows: ['rule.media.verbs-as-shown'] });
    });
  },
);
