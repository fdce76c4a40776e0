// Runs selected checks against a target for the harness's own tests and finds their outcomes.
import assert from 'node:assert/strict';
import { runChecks, type CheckOutcome, type EngineResult } from '../engine.ts';
import { startProxiedSimulator, type ProxyRules, type RunningTarget } from './proxy-server.ts';
import { startSimulator, type SimulatorOptions } from '../../../simulator/cluster.ts';
import type { Profile } from '../profile.ts';

const targets: RunningTarget[] = [];

export async function closeTargets(): Promise<void> {
  await Promise.all(targets.splice(0).map((t) => t.close()));
}

export interface RunOptions {
  runs?: number;
  seed?: number;
  /** The simulator behind the proxy: default the API server alone. */
  simulator?: SimulatorOptions;
  profiles?: Profile[];
}

/** A cluster like `npx tsx simulator` starts (controllers and 3 nodes), with the given daemon options. */
export const CLUSTER = (controllerArgs: string[] = []): SimulatorOptions => ({ controllers: true, nodes: 3, controllerArgs });

export async function runThroughProxy(rules: ProxyRules, ids: string[], options: RunOptions = {}): Promise<EngineResult> {
  const target = await startProxiedSimulator(rules, options.simulator);
  targets.push(target);
  return runOn(target.url, ids, options);
}

/** The simulator itself (no proxy) as the target, e.g. with one controller switched off. */
export async function runOnSimulator(simulator: SimulatorOptions, ids: string[], options: RunOptions = {}): Promise<EngineResult> {
  const sim = await startSimulator({ port: 0, host: '127.0.0.1', ...simulator });
  targets.push({ url: sim.url, close: () => sim.close() });
  return runOn(sim.url.replace(/\/+$/, ''), ids, options);
}

function runOn(url: string, ids: string[], options: RunOptions): Promise<EngineResult> {
  return runChecks({
    connection: { url },
    vendor: 'kubernetes',
    seed: options.seed ?? 42,
    runs: options.runs ?? 12,
    workers: 2,
    timeoutSeconds: 60,
    replayCommand: `npx tsx suites --target ${url}`,
    profiles: options.profiles,
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
