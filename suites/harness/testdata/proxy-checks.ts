// Runs chosen checks through a breaking proxy in front of a simulator and judges their outcomes, for the harness
// tests that show a check failing on a server that breaks its row (charged to that row) and passing on one that
// varies as the spec allows. Shared by deletion.test.ts, watch-gone.test.ts and list-watch-deletion.test.ts.
import assert from 'node:assert/strict';
import { runChecks, type CheckOutcome, type EngineResult } from '../engine.ts';
import { startBreakingProxy, type ProxyBreaks, type RunningProxy } from './breaking-proxy.ts';

const proxies: RunningProxy[] = [];

export async function closeProxies(): Promise<void> {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
}

export async function runAgainst(upstream: string, breaks: ProxyBreaks, ids: string[]): Promise<EngineResult> {
  const proxy = await startBreakingProxy(upstream, breaks);
  proxies.push(proxy);
  return runChecks({
    connection: { url: proxy.url },
    vendor: 'kubernetes',
    seed: 11,
    runs: 10,
    workers: 3,
    timeoutSeconds: 60,
    replayCommand: `npx tsx suites --target ${proxy.url}`,
    grep: new RegExp(`^(${ids.map((i) => i.replace(/\./g, '\\.')).join('|')})$`),
  });
}

export function outcome(result: EngineResult, id: string): CheckOutcome {
  const found = result.checks.find((c) => c.id === id);
  assert.ok(found, `check ${id} was not run`);
  return found;
}

export function assertPassed(result: EngineResult, ids: string[]): void {
  for (const id of ids) {
    const o = outcome(result, id);
    assert.equal(o.status, 'passed', `${id}: ${o.status} ${o.message ?? o.reason ?? ''}`);
  }
}

/** The check failed, and its failure is charged to at least one of `rows`. */
export function assertFailed(result: EngineResult, id: string, rows: string[], message?: RegExp): CheckOutcome {
  const o = outcome(result, id);
  assert.equal(o.status, 'failed', `${id} should fail: ${o.status} ${o.reason ?? ''}`);
  const failed = o.evidence?.failedRows ?? o.rows;
  assert.ok(rows.some((r) => failed.includes(r)), `${id}: failure charged to ${JSON.stringify(failed)}, expected one of ${rows.join(', ')}; message: ${o.message}`);
  if (message) assert.match(o.message ?? '', message);
  assert.match(o.evidence?.replayCommand ?? '', /--replay '/);
  return o;
}
