import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DaemonProcess, runQueueWaitMs, runToExit, WorkClock } from './daemon-process.ts';

const ppidOf = async (command: string): Promise<number> => {
  const p = new DaemonProcess(command, ['-e', 'console.log(process.ppid)'], process.cwd());
  const exit = await p.exited;
  assert.equal(exit.code, 0, p.stderr);
  return Number(p.stdout.trim());
};

test('a plain command line runs as this process\'s own child (exec\'d by the shell), so that its CPU is counted', async () => {
  assert.equal(await ppidOf(process.execPath), process.pid);
});

test('a command line with shell syntax (an environment assignment) still runs, under its shell', async () => {
  const ppid = await ppidOf(`SOME_SETTING=1 ${process.execPath}`);
  assert.notEqual(ppid, process.pid);
  assert.ok(ppid > 0, `the command printed no parent pid (${ppid})`);
});

test('a work-time limit: an idle process that never answers times out about on time (its wait for a CPU is small)', async () => {
  const p = new DaemonProcess('sleep', ['30'], process.cwd());
  try {
    const clock = new WorkClock(() => p.pid, 300);
    assert.equal(clock.expired(), false);
    while (!clock.expired()) await new Promise((r) => setTimeout(r, 50));
    assert.ok(clock.wallMs < 1500, `expired after ${clock.wallMs} ms`);
    const waited = runQueueWaitMs(p.pid);
    assert.ok(Number.isFinite(waited) && waited >= 0 && waited < 1000, `run-queue wait ${waited}`);
  } finally {
    await p.stop();
  }
});

test('a CPU-bound process group starved by busy cores gets its limit extended by its wait, up to the hard cap', async () => {
  // Two spinning processes per core in one group: each waits for a CPU about as long as it runs.
  const cores = (await import('node:os')).availableParallelism();
  const spin = 'i=0; while [ $i -lt 1 ]; do :; done';
  const line = Array.from({ length: cores * 2 }, () => `sh -c '${spin}' &`).join(' ') + ' wait';
  const res = runToExit(line, [], process.cwd(), 1_000);
  const started = performance.now();
  const out = await res;
  const took = performance.now() - started;
  assert.equal(out.timedOut, true);
  assert.ok(took >= 1_500 && took <= 5_500, `stopped after ${took} ms (a wait for a CPU should have stretched 1 s of limit)`);
});
