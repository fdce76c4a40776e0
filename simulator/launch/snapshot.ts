// --snapshot-save FILE / --snapshot-load FILE: the memory store's objects and revision counter as one JSON file,
// so that a simulator started from it has the same objects at the same resourceVersions and the next write
// continues the count (storage/memory.ts MemoryStoreSnapshot). Saved through a fresh file renamed into place.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MemoryStore, MemoryStoreSnapshot } from '../storage/memory.ts';
import { writeFileSafely } from './client-config-file.ts';
import { SimulatorStartError } from './errors.ts';
import { packageVersion } from './version.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';

const KIND = 'ClusterSimulatorSnapshot';
const FORMAT = 1;

interface SnapshotFile extends MemoryStoreSnapshot {
  kind: typeof KIND;
  format: number;
  simulator: string;
  savedAt: string;
}

export function readSnapshot(path: string): MemoryStoreSnapshot {
  let doc: Partial<SnapshotFile>;
  try {
    doc = parseJson(readFileSync(resolve(path), 'utf8')) as Partial<SnapshotFile>;
  } catch (e) {
    throw new SimulatorStartError(`--snapshot-load ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (doc?.kind !== KIND || doc.format !== FORMAT || !Array.isArray(doc.objects) || typeof doc.revision !== 'number')
    throw new SimulatorStartError(`--snapshot-load ${path}: not a snapshot of format ${FORMAT} (written by --snapshot-save)`);
  return { revision: doc.revision, objects: doc.objects };
}

export function saveSnapshot(path: string, store: MemoryStore): void {
  const s = store.snapshot();
  const savedAt = new Date().toISOString();
  const doc: SnapshotFile = { kind: KIND, format: FORMAT, simulator: packageVersion(), savedAt, revision: s.revision, objects: s.objects };
  writeFileSafely(resolve(path), stringifyJson(doc));
}
