// YAML with int64 kept exact: js-yaml's core schema makes a double of every integer (8071137005907523419 reads as
// 8071137005907524000) and refuses to write a BigInt. The real server reads YAML into JSON with Go's int64, so the
// schema here replaces the int type: an integer a double cannot hold (int64/uint64 range) reads as a BigInt, and a
// BigInt writes as its digits, plain (unquoted), like any other integer.

import yaml from 'js-yaml';
import { integerOrNumber } from '../util/int64-json.ts';

// js-yaml 4 exports its types at run time; @types/js-yaml does not declare them.
const coreInt = (yaml as unknown as { types: { int: yaml.Type & { construct(data: string): unknown; resolve(data: string): boolean } } }).types.int;

function exactInteger(data: string): number | bigint {
  const n = coreInt.construct(data) as number;
  if (Number.isSafeInteger(n)) return n;
  // Underscores and a sign as js-yaml reads them; BigInt() reads the 0x, 0o and 0b prefixes itself.
  let text = data.replace(/_/g, '');
  let negative = false;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    text = text.slice(1);
  }
  let b: bigint;
  try {
    b = BigInt(text);
  } catch {
    return n;
  }
  const v = integerOrNumber((negative ? -b : b).toString());
  return typeof v === 'bigint' ? v : n;
}

const int64Type = new yaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string) => coreInt.resolve(data),
  construct: exactInteger,
  predicate: (v: unknown) => typeof v === 'bigint' || (coreInt.predicate?.(v as object) ?? false),
  represent: (v: object) => (v as unknown as number | bigint).toString(10),
});

/** js-yaml's default schema with the int type above in place of its own. */
export const INT64_YAML_SCHEMA = yaml.DEFAULT_SCHEMA.extend({ implicit: [int64Type] });

/** yaml.loadAll with int64 exact. */
export function loadAllYaml(text: string): unknown[] {
  return yaml.loadAll(text, undefined, { schema: INT64_YAML_SCHEMA });
}

/** yaml.load with int64 exact. */
export function loadYaml(text: string): unknown {
  return yaml.load(text, { schema: INT64_YAML_SCHEMA });
}

/** yaml.dump with BigInts written as integers. */
export function dumpYaml(value: unknown, options: yaml.DumpOptions = {}): string {
  return yaml.dump(value, { ...options, schema: INT64_YAML_SCHEMA });
}
