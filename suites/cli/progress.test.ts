import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Progress } from './progress.ts';

test('a heartbeat line names the checks still running once no line came for the heartbeat period', async () => {
  const lines: string[] = [];
  const progress = new Progress({ write: (t: string) => lines.push(t) }, 50);
  progress.plan(3);
  progress.start('lifecycle.a');
  progress.start('lifecycle.b');
  progress.done({ id: 'lifecycle.b', suite: 'lifecycle', rows: [], status: 'passed', durationMs: 3800 });
  await new Promise((r) => setTimeout(r, 1300));
  progress.finish();
  assert.equal(lines[0], 'ok   lifecycle.b (3.8 s)\n');
  const beats = lines.filter((l) => l.startsWith('... '));
  assert.ok(beats.length >= 1, lines.join(''));
  assert.match(beats[0], /^\.\.\. 1\/3 done; running: lifecycle\.a \(\d+ s\)\n$/);
  const after = lines.length;
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(lines.length, after, 'no heartbeat after finish()');
});
