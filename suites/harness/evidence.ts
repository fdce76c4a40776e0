// What a failing check leaves behind for its report: the message, the spec rows it names, the exchanges
// that show the failure with curl lines, and how to replay it.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RenderedExchange } from './recorder.ts';

export interface CheckEvidence {
  checkId: string;
  message: string;
  /** Rows the failure names; absent when it counts against all the check's rows. */
  failedRows?: string[];
  exchanges: RenderedExchange[];
  seed: number;
  property?: number;
  path?: string;
  counterexample?: string;
  replay: string;
  replayCommand: string;
}

function fileName(checkId: string): string {
  return `${checkId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

export function writeEvidence(dir: string, evidence: CheckEvidence): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, fileName(evidence.checkId)), JSON.stringify(evidence, null, 2));
}

export function readEvidence(dir: string, checkId: string): CheckEvidence | undefined {
  const path = join(dir, fileName(checkId));
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CheckEvidence;
  } catch {
    return undefined;
  }
}
