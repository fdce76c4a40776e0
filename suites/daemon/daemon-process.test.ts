import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DaemonProcess } from './daemon-process.ts';

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
