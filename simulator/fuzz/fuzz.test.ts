// A bounded fuzz run (issue 17) in npm test: a few hundred generated hostile requests of every class against a
// simulator in a child process; 0 5xx, 0 hangs, every error body a Status, the process alive with its RSS back
// within a bound, every list readable as protobuf, and a Job created afterwards completes. `npm run fuzz`
// runs longer (see README.md).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatReport, fuzzPassed, runFuzz, startChildSimulator } from './run.ts';

test('fuzz (bounded): hostile requests never get a 5xx, a hang or a non-Status error; the cluster keeps working', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const sim = await startChildSimulator();
  try {
    const report = await runFuzz(sim, { count: Number(process.env.FUZZ_COUNT ?? 600), seed, concurrency: 6 });
    const text = formatReport(report);
    assert.ok(fuzzPassed(report), `${text}\nreplay: FUZZ_SEED=${seed} node scripts/run-tests.mjs simulator/fuzz`);
    // Every class was exercised.
    for (const cls of ['fields', 'integers', 'quantities', 'nesting', 'aliases', 'paths', 'methods', 'queries', 'headers', 'protobuf', 'patches', 'bodies']) assert.ok((report.byClass[cls] ?? 0) > 0, `class ${cls} not generated: ${text}`);
  } finally {
    await sim.stop();
  }
});
