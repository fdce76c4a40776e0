// The known-failures file of a target: check ids or spec row ids expected to fail there. YAML or JSON:
//   - negotiation.protobuf-accept            # a check id
//   - id: rule.negotiation.unsupported-406   # a row id, with a reason
//     reason: answers 415 instead
// or the same list under a top-level `expectedFailures:` key.
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';

export class ExpectedFailuresError extends Error {
  override name = 'ExpectedFailuresError';
}

export interface ExpectedFailure {
  id: string;
  reason?: string;
}

export function parseExpectedFailures(text: string, source: string): ExpectedFailure[] {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new ExpectedFailuresError(`${source} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === undefined || doc === null) return [];
  const list = Array.isArray(doc) ? doc : (doc as Record<string, unknown>).expectedFailures;
  if (!Array.isArray(list)) throw new ExpectedFailuresError(`${source} must be a list of ids (or hold one under "expectedFailures")`);
  return list.map((entry, i) => {
    if (typeof entry === 'string' && entry.trim()) return { id: entry.trim() };
    if (entry && typeof entry === 'object' && typeof (entry as ExpectedFailure).id === 'string') {
      const { id, reason } = entry as ExpectedFailure;
      return reason === undefined ? { id } : { id, reason: String(reason) };
    }
    throw new ExpectedFailuresError(`${source}: entry ${i + 1} is neither an id nor {id, reason}`);
  });
}

export function readExpectedFailures(path: string): ExpectedFailure[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ExpectedFailuresError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseExpectedFailures(text, path);
}
