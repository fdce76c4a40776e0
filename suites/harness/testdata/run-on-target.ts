// Runs selected checks against a target for the harness's own tests and finds their outcomes.
import assert from 'node:assert/strict';
import { runChecks, type CheckOutcome, type EngineResult } from '../engine.ts';
import { startProxiedSimulator, type ProxyRules, type RunningTarget } from './proxy-server.ts';

const targets: RunningTarget[] = [];

export async function closeTargets(): Promise<void> {
  await Promise.all(targets.splice(0).map((t) => t.close()));
}

export async function runThroughProxy(rules: ProxyRules, ids: string[], options: { runs?: number; seed?: number } = {}): Promise<EngineResult> {
  const target = await startProxiedSimulator(rules);
  targets.push(target);
  return runChecks({
    connection: { url: target.url },
    vendor: 'kubernetes',
    seed: options.seed ?? 42,
    runs: options.runs ?? 12,
    workers: 2,
    timeoutSeconds: 60,
    replayCommand: `npx tsx suites --target ${target.url}`,
    grep: new RegExp(`^(${ids.map((i) => i.replace(/[.]/g, '\\.')).join('|')})$`),
  });
}

export function outcome(result: EngineResult, id: string): CheckOutcome {
  const found = result.checks.find((c) => c.id === id);
  assert.ok(found, `check ${id} was not run (ran: ${result.checks.map((c) => c.id).join(', ')})`);
  return found;
}

export function assertPassed(result: EngineResult, ids: string[]): void {
  for (const id of ids) {
    const o = outcome(result, id);
    assert.equal(o.status, 'passed', `${id}: ${o.status} ${o.message ?? o.reason ?? ''}`);
  }
}

export function assertFailed(result: EngineResult, id: string, message?: RegExp): CheckOutcome {
  const o = outcome(result, id);
  assert.equal(o.status, 'failed', `${id} should have failed but ${o.status}${o.reason ? `: ${o.reason}` : ''}`);
  if (message) assert.match(o.message ?? '', message, `${id} failed for another reason`);
  return o;
}
