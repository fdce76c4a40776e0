// --snapshot-save / --snapshot-load keep int64 exact: an integer beyond 2^53 in a stored object (a BigInt,
// util/int64-json.ts) is written to the file as its digits and read back as the same BigInt.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/meta.ts';
import { MemoryStore } from '../storage/memory.ts';
import { readSnapshot, saveSnapshot } from './snapshot.ts';

test('a snapshot keeps int64 beyond 2^53 exact', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-int64-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'snapshot.json');
  const store = new MemoryStore();
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', generation: 8071137005907523419n }, spec: { activeDeadlineSeconds: 2n ** 63n - 1n } };
  await store.create('/registry/pods/default/p', pod as unknown as KubeObject);
  saveSnapshot(file, store);
  assert.match(readFileSync(file, 'utf8'), /"generation":8071137005907523419,.*"activeDeadlineSeconds":9223372036854775807\}/);
  const again = new MemoryStore({ initial: readSnapshot(file) });
  const got = (await again.get('/registry/pods/default/p'))?.value as unknown as typeof pod;
  assert.equal(got.metadata.generation, 8071137005907523419n);
  assert.equal(got.spec.activeDeadlineSeconds, 2n ** 63n - 1n);
});
