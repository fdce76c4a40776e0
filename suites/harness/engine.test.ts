// The harness fails when it should and only then: against a small server that breaks one rule at a time,
// the matching check fails and names the right spec row; a correct-but-different server passes.
import { execFileSync } from 'node:child_process';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { runChecks, type CheckOutcome, type EngineResult } from './engine.ts';
import { startMiniServer, type Breaks } from './testdata/mini-server.ts';

const servers: Array<{ close(): Promise<void> }> = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const CHECKS = [
  'negotiation.accept-each-type',
  'negotiation.unsupported-accept-406',
  'negotiation.malformed-body-400',
  'crud.stale-put-conflict',
  'crud.create-then-get',
  'crud.put-ignores-status',
];

async function runAgainst(breaks: Breaks, ids: string[] = CHECKS): Promise<EngineResult> {
  const server = await startMiniServer(breaks);
  servers.push(server);
  return runChecks({
    connection: { url: server.url },
    vendor: 'kubernetes',
    seed: 7,
    runs: 8,
    workers: 2,
    timeoutSeconds: 30,
    replayCommand: `npx tsx suites --target ${server.url}`,
    grep: new RegExp(`^(${ids.map((i) => i.replace(/\./g, '\\.')).join('|')})$`),
  });
}

function outcome(result: EngineResult, id: string): CheckOutcome {
  const found = result.checks.find((c) => c.id === id);
  assert.ok(found, `check ${id} was not run`);
  return found;
}

test('a server that follows the rules passes every selected check; unserved groups are skipped, not passed', async () => {
  const result = await runAgainst({});
  for (const id of CHECKS.filter((i) => i !== 'crud.put-ignores-status')) {
    const o = outcome(result, id);
    assert.equal(o.status, 'passed', `${id}: ${o.message ?? o.reason}`);
  }
  const skipped = outcome(result, 'crud.put-ignores-status');
  assert.equal(skipped.status, 'skipped');
  assert.match(skipped.reason ?? '', /does not serve apps\/v1/);
  assert.deepEqual(result.swept, [], 'checks left namespaces behind');
});

test('create answering 200 instead of 201 is allowed by the spec and passes', async () => {
  const result = await runAgainst({ create200: true }, ['crud.create-then-get', 'crud.stale-put-conflict']);
  for (const c of result.checks) assert.equal(c.status, 'passed', `${c.id}: ${c.message}`);
});

test('YAML asked, JSON answered: the Accept check fails and names media.yaml', async () => {
  const result = await runAgainst({ yamlAsJson: true }, ['negotiation.accept-each-type']);
  const o = outcome(result, 'negotiation.accept-each-type');
  assert.equal(o.status, 'failed');
  assert.deepEqual(o.evidence?.failedRows, ['media.yaml']);
  assert.match(o.message ?? '', /Content-Type/);
  assert.ok(o.evidence && o.evidence.exchanges.length > 0, 'no exchanges in the evidence');
  const last = o.evidence.exchanges[o.evidence.exchanges.length - 1];
  assert.equal(last.requestHeaders.Accept, 'application/yaml');
  assert.match(last.curl, /^curl .*-H 'Accept: application\/yaml'/);
  assert.match(o.evidence.replay, /^negotiation\.accept-each-type@-?\d+:0:[\d:]+$/);
  assert.ok(o.evidence.counterexample?.includes('yaml'), `counterexample: ${o.evidence.counterexample}`);
});

test('no 406 for an unsupported Accept: the 406 check fails', async () => {
  const result = await runAgainst({ no406: true }, ['negotiation.unsupported-accept-406']);
  const o = outcome(result, 'negotiation.unsupported-accept-406');
  assert.equal(o.status, 'failed');
  assert.deepEqual(o.rows, ['negotiation.unsupported', 'error.406']);
  assert.match(o.message ?? '', /expected HTTP 406, got 200/);
});

test('a stale resourceVersion accepted: the optimistic-lock check fails', async () => {
  const result = await runAgainst({ ignoreStaleResourceVersion: true }, ['crud.stale-put-conflict']);
  const o = outcome(result, 'crud.stale-put-conflict');
  assert.equal(o.status, 'failed');
  assert.ok(o.rows.includes('error.optimistic-lock'), "o.rows.includes('error.optimistic-lock')");
  assert.match(o.message ?? '', /stale resourceVersion.*expected HTTP 409/s);
});

test('500 for a malformed body: the 400 check fails', async () => {
  const result = await runAgainst({ badBody500: true }, ['negotiation.malformed-body-400']);
  const o = outcome(result, 'negotiation.malformed-body-400');
  assert.equal(o.status, 'failed');
  assert.match(o.message ?? '', /expected HTTP 400, got 500/);
});

test('checks that wait for a starting cluster begin only once it is up; the others do not wait for it', async () => {
  const server = await startMiniServer({});
  servers.push(server);
  const started = Date.now();
  let readyAt = 0;
  // Up 6 s after the run began (a daemon and nodes still starting behind the API server): well after a check
  // process would have begun its check without waiting.
  const ready = new Promise<void>((r) =>
    setTimeout(() => {
      readyAt = Date.now();
      r();
    }, 6000),
  );
  const result = await runChecks({
    connection: { url: server.url },
    vendor: 'kubernetes',
    seed: 7,
    runs: 4,
    workers: 2,
    timeoutSeconds: 30,
    replayCommand: `npx tsx suites --target ${server.url}`,
    grep: /^(crud\.create-then-get|negotiation\.unsupported-accept-406)$/,
    clusterStarting: { ready, waits: (c) => c.suite === 'crud' },
  });
  for (const c of result.checks) assert.equal(c.status, 'passed', `${c.id}: ${c.message}`);
  const crud = result.suiteSpans?.crud;
  assert.ok(crud && readyAt > 0, 'crud ran and the cluster came up');
  assert.ok(started + crud.startMs >= readyAt, `crud.create-then-get began ${readyAt - started - crud.startMs} ms before the cluster was up`);
});

/** The check processes this process has running now (node's test runner starts one per suite file). */
function checkProcesses(): string[] {
  const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => /\.suite\.m?[jt]s/.test(line));
}

async function seenWithin(ms: number, predicate: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return predicate();
}

/** A run of the given checks against a target that is not known yet: the test settles `target` when it likes. */
function runOnLaterTarget(target: Promise<{ url: string }>, grep: RegExp): Promise<EngineResult> {
  return runChecks({ connection: target, vendor: 'kubernetes', seed: 7, runs: 4, workers: 2, timeoutSeconds: 30, replayCommand: 'npx tsx suites', grep });
}

test('a target still starting: the check processes are launched before it answers, and run their checks once it does', async () => {
  const server = await startMiniServer({});
  servers.push(server);
  let resolveTarget: (c: { url: string }) => void = () => {};
  const running = runOnLaterTarget(new Promise((r) => (resolveTarget = r)), /^(crud\.create-then-get|negotiation\.unsupported-accept-406)$/);
  const launched = await seenWithin(60_000, () => checkProcesses().length >= 2);
  resolveTarget({ url: server.url });
  const result = await running;
  assert.ok(launched, 'no check process was started before the target was known');
  assert.equal(result.checks.length, 2);
  for (const c of result.checks) assert.equal(c.status, 'passed', `${c.id}: ${c.message}`);
});

test('a target that never comes up: the run fails with its error and leaves no check process waiting', async () => {
  let failTarget: (err: Error) => void = () => {};
  const running = runOnLaterTarget(new Promise((_, reject) => (failTarget = reject)), /^crud\.create-then-get$/);
  const launched = await seenWithin(60_000, () => checkProcesses().length >= 1);
  failTarget(new Error('the simulator did not start'));
  await assert.rejects(running, /the simulator did not start/);
  assert.ok(launched, 'no check process was started before the target was known');
  assert.ok(await seenWithin(15_000, () => checkProcesses().length === 0), `still running: ${checkProcesses().join('; ')}`);
});
