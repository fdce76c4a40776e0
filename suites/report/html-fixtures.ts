// Test fixtures of the HTML report: small results.json documents built through buildResults (so they have
// the shape a real run gives), optionally full of hostile text in every place a target can put some.
import type { EngineResult } from '../harness/engine.ts';
import type { ConformanceResults } from './results-schema.ts';
import { buildResults } from './results.ts';

/** Markup that must come out as text: a script, an event handler breaking out of an attribute, a closing tag. */
export const HOSTILE = `</pre></code><script>window.pwned=1</script><img src=x onerror="window.pwned=2">"'&\u0001`;

export interface SampleOptions {
  target?: string;
  /** Put HOSTILE into the response body, headers, message, counterexample and the target URL. */
  hostile?: boolean;
  /** c1 fails (charged to row b); otherwise it passes. */
  failing?: boolean;
  /** Row ids the expected-failures file lists. */
  expected?: string[];
}

const row = (id: string, section: string, testable = true) =>
  ({ id, section, table: 'rules', spec: `The spec's words for ${id}.`, testable, reason: testable ? null : 'not observable' });

export function sampleResults(options: SampleOptions = {}): ConformanceResults {
  const bad = options.hostile ? HOSTILE : '';
  const target = options.target ?? `http://127.0.0.1:8080${options.hostile ? `/${encodeURIComponent(HOSTILE)}` : ''}`;
  const message = `GET /api/v1/x with Accept application/yaml: expected HTTP 406, got 200 ${bad}`;
  const engine: EngineResult = {
    runId: 'run1',
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:04:07.500Z',
    durationMs: 2500,
    discovery: { groupVersions: {}, problems: [] },
    interrupted: false,
    swept: [],
    checks: [
      options.failing
        ? {
            id: 'c1', suite: 'negotiation', title: 'answers 406', rows: ['a', 'b'], status: 'failed', durationMs: 12, message,
            evidence: {
              checkId: 'c1', message, failedRows: ['b'], seed: 42, property: 0, path: '0:1', counterexample: `{"accept":"text/html${bad}"}`,
              replay: 'c1@42:0:0:1', replayCommand: `npx tsx suites --target '${target}' --runs 5 --replay 'c1@42:0:0:1'`,
              exchanges: [{
                method: 'GET', url: `${target}/api/v1/x`, requestHeaders: { Accept: 'text/html' }, status: 200,
                responseHeaders: { 'content-type': 'application/json', 'x-evil': bad || 'none' },
                responseBody: `{"kind":"ConfigMap","data":{"html":${JSON.stringify(bad)}}}`, responseBodyEncoding: 'utf8',
                durationMs: 3, curl: `curl -sS -i -H 'Accept: text/html' '${target}/api/v1/x'`,
              }],
            },
          }
        : { id: 'c1', suite: 'negotiation', rows: ['a', 'b'], status: 'passed', durationMs: 12 },
      { id: 'c2', suite: 'crud', rows: ['c'], status: 'passed', durationMs: 5 },
      { id: 'c3', suite: 'crud', rows: ['d'], status: 'skipped', durationMs: 0, reason: 'target does not serve apps/v1' },
    ],
  };
  return buildResults({
    engine,
    catalog: [{ id: 'c1', rows: ['a', 'b'] }, { id: 'c2', rows: ['c'] }, { id: 'c3', rows: ['d'] }],
    // Sections in an order that is not numeric, to show the report sorts them.
    rows: [row('c', '4.10'), row('a', '4.2'), row('b', '4.2'), row('d', '4.2'), row('e', '2.1'), row('f', '2.1', false)],
    target, embedded: false, vendor: 'kubernetes', seed: 7, runs: 5, suites: ['negotiation', 'crud'], profiles: ['cluster'],
    ...(options.expected ? { expectedFailures: { file: 'known.yaml', ids: options.expected } } : {}),
  });
}
