// npm run fuzz -- [--count N] [--seed S] [--concurrency C]
// Starts a simulator (API server, controller daemon, 3 nodes) in a child process, sends N generated hostile
// requests (requests.ts) and prints the counts by status class and by request class, every failure (5xx, hang,
// non-Status error body, an accepted object that cannot be read as protobuf) and the checks afterwards (process
// alive, RSS, every list readable as protobuf, a Job completing). Exit code 0 only when all of them hold.

import { parseArgs } from 'node:util';
import { formatReport, fuzzPassed, runFuzz, startChildSimulator } from './run.ts';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '2000' }, from: { type: 'string', default: '0' }, seed: { type: 'string' }, concurrency: { type: 'string', default: '8' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});
if (values.help) {
  process.stdout.write('Usage: npm run fuzz -- [--count N (default 2000)] [--from I (first request index, default 0)] [--seed S (default random)] [--concurrency C (default 8)]\n');
  process.exit(0);
}
const count = Number(values.count);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const concurrency = Number(values.concurrency);
const from = Number(values.from);
const whole = (n: number, min: number) => Number.isInteger(n) && n >= min;
if (!whole(count, 1) || !Number.isInteger(seed) || !whole(concurrency, 1) || !whole(from, 0)) {
  process.stderr.write('fuzz: --count, --seed and --concurrency must be integers (count, concurrency >= 1)\n');
  process.exit(2);
}
const sim = await startChildSimulator();
// Stopped from outside (Ctrl-C, kill): the child simulator goes too, instead of living on without its parent.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    void sim.stop().then(() => process.exit(130));
  });
}
process.stdout.write(`fuzz: simulator at ${sim.url} (pid ${sim.pid}), ${count} requests, seed ${seed}\n`);
try {
  const report = await runFuzz(sim, { count, seed, concurrency, from, log: (l) => process.stdout.write(`${l}\n`) });
  process.stdout.write(`${formatReport(report)}\n`);
  const ok = fuzzPassed(report);
  process.stdout.write(`fuzz: ${ok ? 'PASS' : 'FAIL'} (replay: npm run fuzz -- --count ${count}${from ? ` --from ${from}` : ''} --seed ${seed})\n`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await sim.stop();
}
