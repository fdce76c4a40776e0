// The CLI's contract: exit 2 with one line for bad usage or an unreachable target, 0 only when every
// applicable check passed, expected failures kept out of the gate but reported, reports written.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { main } from './main.ts';
import { startMiniServer } from '../harness/testdata/mini-server.ts';
import { startSimulator } from '../../simulator/cluster.ts';
import { resultsJsonSchema, type ConformanceResults } from '../report/results-schema.ts';

const servers: Array<{ close(): Promise<void> }> = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: { write: (s: string) => (out += s), isTTY: false }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

const CHECK_406 = ['--grep', '^negotiation\\.unsupported-accept-406$', '--runs', '5'];

test('bad usage exits 2 with one line', async () => {
  for (const args of [['--no-such-flag'], ['--runs', 'many'], ['--grep', '('], ['--suite', 'nope', '--list'], ['--replay', 'x']]) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.equal(r.err.trim().split('\n').length, 1, `${args.join(' ')} printed more than one line: ${r.err}`);
    assert.match(r.err, /^error: /);
  }
});

test('an unreachable target exits 2 naming the target and the reason', async () => {
  const r = await cli(['--target', 'http://127.0.0.1:1']);
  assert.equal(r.code, 2);
  assert.equal(r.err.trim(), 'error: target http://127.0.0.1:1 is unreachable: connect ECONNREFUSED 127.0.0.1:1');
});

test('a server that answers 200 without discovery lists exits 2 instead of passing with every check skipped', async () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await cli(['--target', url, '--suite', 'crud']);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.err.trim(), `error: target ${url} serves no discovery document (GET /api answered 200 without a "versions" list, GET /apis answered 200 without a "groups" list)`);
  } finally {
    server.close();
  }
});

test('--list prints checks with their rows and runs nothing', async () => {
  const r = await cli(['--list', '--suite', 'crud']);
  assert.equal(r.code, 0);
  assert.match(r.out, /^crud\.stale-put-conflict {2}\[crud, api\] {2}rule\.ops\.replace-optimistic-lock, error\.optimistic-lock/m);
  assert.doesNotMatch(r.out, /^negotiation\./m);
});

test('a failing check exits 1 and writes junit.xml and a results.json that matches its schema', async () => {
  const server = await startMiniServer({ no406: true });
  servers.push(server);
  const dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  const r = await cli(['--target', server.url, ...CHECK_406, '--report-dir', dir, '--seed', '11']);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /FAIL negotiation\.unsupported-accept-406/);
  assert.match(r.out, /replay: npx tsx suites --target '.*' --runs 5 --replay 'negotiation\.unsupported-accept-406@/);
  const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ConformanceResults;
  const ajv = new Ajv2020.default({ strict: false });
  addFormats.default(ajv);
  assert.ok(ajv.validate(resultsJsonSchema, results), JSON.stringify(ajv.errors));
  assert.equal(results.passed, false);
  assert.equal(results.run.seed, 11);
  assert.equal(results.rows.find((row) => row.id === 'error.406')?.status, 'failed');
  assert.equal(results.rows.find((row) => row.id === 'rule.ops.replace-optimistic-lock')?.status, 'not-selected');
  assert.equal(results.verdict, 'FAIL');
  assert.equal(results.run.profile, 'cluster');
  assert.match(r.out, /conformance: FAIL \(profile cluster\)/);
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  assert.match(junit, /<testcase classname="negotiation" name="negotiation.unsupported-accept-406"/);
  assert.match(junit, /<property name="spec.row" value="error.406"\/>/);
  assert.match(junit, /<property name="profile" value="cluster"\/>/);
  assert.match(junit, /<failure message="[^"]*expected HTTP 406, got 200/);
});

test('expected failures do not fail the gate; an unexpected pass is reported', async () => {
  const broken = await startMiniServer({ no406: true });
  const fine = await startMiniServer({});
  servers.push(broken, fine);
  const dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  const file = join(dir, 'expected.yaml');
  writeFileSync(file, '# known failures\n- id: error.406\n  reason: answers 200\n- negotiation.unsupported\n');
  const failing = await cli(['--target', broken.url, ...CHECK_406, '--report-dir', dir, '--expected-failures', file]);
  assert.equal(failing.code, 0, failing.out + failing.err);
  let results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ConformanceResults;
  assert.equal(results.checks[0].status, 'expected-failure');
  const passing = await cli(['--target', fine.url, ...CHECK_406, '--report-dir', dir, '--expected-failures', file]);
  assert.equal(passing.code, 0);
  results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ConformanceResults;
  assert.deepEqual(results.expectedFailures.unexpectedPasses.sort(), ['error.406', 'negotiation.unsupported']);
  assert.match(passing.out, /Unexpected passes/);
});

test('skipped checks against a target: INCOMPLETE with exit 3, each with its reason; --skip makes them excluded and the run PASS', async () => {
  const sim = await startSimulator({ port: 0, host: '127.0.0.1' });
  const server = { url: sim.url.replace(/\/+$/, ''), close: () => sim.close() };
  servers.push(server);
  const dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  // The auth checks need --as-user against a target: without it they are not verified.
  const incomplete = await cli(['--target', server.url, '--grep', '^auth\\.no-credentials', '--report-dir', dir, '--quick']);
  assert.equal(incomplete.code, 3, incomplete.out + incomplete.err);
  assert.match(incomplete.out, /^conformance: INCOMPLETE: \d+ rows not verified \(1 checks skipped\) \(profile cluster, --quick: the history-window checks left out\)/m);
  assert.match(incomplete.out, /pass --as-user TOKEN/);
  const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ConformanceResults;
  assert.equal(results.verdict, 'INCOMPLETE');
  const excluded = await cli(['--target', server.url, '--grep', '^(auth\\.no-credentials|crud\\.not-found)', '--skip', '^auth\\.', '--report-dir', dir]);
  assert.equal(excluded.code, 0, excluded.out + excluded.err);
  assert.match(excluded.out, /^conformance: PASS \(profile cluster\)/m);
  const passed = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ConformanceResults;
  assert.ok(passed.totals.rows.excluded > 0, JSON.stringify(passed.totals.rows));
});
