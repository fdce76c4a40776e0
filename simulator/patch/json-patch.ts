// RFC 6902 JSON patch. Mutations go through fast-json-patch; before each one the operation is checked here
// against the current document, because the library (3.1.1) departs from the RFC where a server must not:
//  - it looks locations up with `obj[key]`, so inherited members count as present ("remove /constructor"
//    on {} succeeds, "test /toString" compares a function);
//  - it accepts "" and leading-zero tokens ("01") as array indices;
//  - it lets "move" put a value inside itself (from a proper prefix of path) instead of failing;
//  - "copy"/"move" to the root from a missing location yield undefined, "remove" of the root yields null;
//  - it inserts the patch's own value objects into the document, so later operations would mutate the
//    caller's patch.
// Malformed operations are 400 (checked for the whole patch before anything is applied); an operation
// that does not apply to this document, including a failed "test", is 422 (never 500: project rule).
import { createRequire } from 'node:module';
import type jsonpatch from 'fast-json-patch';
import { badRequest, unprocessable } from './errors.ts';
import { childOf, formatPointer, isProperPrefix, parseArrayIndex, parsePointer, valueAt } from './json-pointer.ts';
import { deepClone, deepEqual, hasOwn, isJsonObject, jsonKind, type JsonValue } from '../util/json-value.ts';

// Loaded by the first JSON patch, not at start-up.
let fastJsonPatch: typeof jsonpatch | undefined;
const lib = () => (fastJsonPatch ??= createRequire(import.meta.url)('fast-json-patch') as typeof jsonpatch);

export type JsonPatchOpName = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; path: string; from: string };

interface ParsedOperation {
  op: JsonPatchOpName;
  path: string;
  tokens: string[];
  from?: string;
  fromTokens?: string[];
  value?: JsonValue;
}

const OPS_WITH_VALUE: ReadonlySet<string> = new Set(['add', 'replace', 'test']);
const OPS_WITH_FROM: ReadonlySet<string> = new Set(['move', 'copy']);
const ALL_OPS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Applies an RFC 6902 patch (already decoded from JSON) and returns the new document; inputs are untouched. */
export function applyJsonPatch(doc: JsonValue, patch: unknown): JsonValue {
  const operations = parseJsonPatch(patch);
  let current = deepClone(doc);
  for (const operation of operations) current = applyOperation(current, operation);
  return current;
}

/** Validates the shape of every operation; throws 400 on the first malformed one. */
export function parseJsonPatch(patch: unknown): ParsedOperation[] {
  if (!Array.isArray(patch)) {
    throw badRequest(`a JSON patch must be a JSON array of operations, not ${describe(patch)}`);
  }
  return patch.map((raw, index) => parseOperation(raw, index));
}

function parseOperation(raw: unknown, index: number): ParsedOperation {
  if (!isJsonObject(raw)) throw badRequest(`operation ${index} is not a JSON object: ${describe(raw)}`);
  const op = hasOwn(raw, 'op') ? raw.op : undefined;
  if (typeof op !== 'string') throw badRequest(`operation ${index}: "op" is missing or not a string`);
  if (!ALL_OPS.has(op)) throw badRequest(`operation ${index}: unknown op ${JSON.stringify(op)}`);
  const where = `operation ${index} (${op})`;
  const path = pointerMember(raw, 'path', where);
  const parsed: ParsedOperation = { op: op as JsonPatchOpName, path: path.pointer, tokens: path.tokens };
  if (OPS_WITH_FROM.has(op)) {
    const from = pointerMember(raw, 'from', where);
    parsed.from = from.pointer;
    parsed.fromTokens = from.tokens;
  }
  if (OPS_WITH_VALUE.has(op)) {
    if (!hasOwn(raw, 'value')) throw badRequest(`${where}: "value" is missing`);
    parsed.value = raw.value;
  }
  return parsed;
}

function pointerMember(raw: Record<string, JsonValue>, member: 'path' | 'from', where: string): { pointer: string; tokens: string[] } {
  const pointer = hasOwn(raw, member) ? raw[member] : undefined;
  if (typeof pointer !== 'string') throw badRequest(`${where}: "${member}" is missing or not a string`);
  const tokens = parsePointer(pointer);
  if (tokens === undefined) throw badRequest(`${where}: "${member}" ${JSON.stringify(pointer)} is not a valid JSON pointer`);
  return { pointer, tokens };
}

function applyOperation(doc: JsonValue, operation: ParsedOperation): JsonValue {
  switch (operation.op) {
    case 'add':
      return add(doc, operation.path, operation.tokens, deepClone(operation.value as JsonValue), 'add');
    case 'remove':
      return remove(doc, operation.path, operation.tokens, 'remove');
    case 'replace': {
      requireExisting(doc, operation.path, operation.tokens, 'replace');
      if (operation.tokens.length === 0) return deepClone(operation.value as JsonValue);
      return mutate(doc, { op: 'replace', path: operation.path, value: deepClone(operation.value as JsonValue) });
    }
    case 'test': {
      const actual = requireExisting(doc, operation.path, operation.tokens, 'test');
      if (!deepEqual(actual, operation.value)) throw unprocessable(`testing value ${operation.path} failed: test failed`);
      return doc;
    }
    case 'move': {
      const fromTokens = operation.fromTokens as string[];
      const value = requireExisting(doc, operation.from as string, fromTokens, 'move', 'from');
      if (isProperPrefix(fromTokens, operation.tokens)) {
        throw unprocessable(`move operation does not apply: "from" ${operation.from} is a proper prefix of "path" ${operation.path}`);
      }
      if (fromTokens.length === operation.tokens.length && fromTokens.every((t, i) => t === operation.tokens[i])) return doc;
      const removed = remove(doc, operation.from as string, fromTokens, 'move');
      return add(removed, operation.path, operation.tokens, value, 'move');
    }
    case 'copy': {
      const value = requireExisting(doc, operation.from as string, operation.fromTokens as string[], 'copy', 'from');
      return add(doc, operation.path, operation.tokens, deepClone(value), 'copy');
    }
  }
}

function add(doc: JsonValue, path: string, tokens: string[], value: JsonValue, opName: string): JsonValue {
  if (tokens.length === 0) return value;
  const parent = requireParent(doc, path, tokens, opName);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : parseArrayIndex(last);
    if (index === undefined) throw unprocessable(`${opName} operation does not apply: invalid array index ${JSON.stringify(last)} in ${path}`);
    if (index > parent.length) throw unprocessable(`${opName} operation does not apply: index ${index} out of bounds in ${path} (length ${parent.length})`);
  }
  return mutate(doc, { op: 'add', path: formatPointer(tokens), value });
}

function remove(doc: JsonValue, path: string, tokens: string[], opName: string): JsonValue {
  if (tokens.length === 0) throw unprocessable(`${opName} operation does not apply: the document root cannot be removed`);
  requireExisting(doc, path, tokens, opName);
  return mutate(doc, { op: 'remove', path: formatPointer(tokens) });
}

/** The container that will hold the last token; every ancestor must exist. */
function requireParent(doc: JsonValue, path: string, tokens: string[], opName: string): JsonValue {
  const parent = valueAt(doc, tokens.slice(0, -1));
  if (parent === undefined || (!Array.isArray(parent) && !isJsonObject(parent))) {
    throw unprocessable(`${opName} operation does not apply: doc is missing path: ${JSON.stringify(path)}`);
  }
  return parent;
}

function requireExisting(doc: JsonValue, path: string, tokens: string[], opName: string, member = 'path'): JsonValue {
  if (tokens.length === 0) return doc;
  const parent = requireParent(doc, path, tokens, opName);
  const value = childOf(parent, tokens[tokens.length - 1]);
  if (value === undefined) {
    const what = member === 'from' ? 'from path' : 'path';
    throw unprocessable(`${opName} operation does not apply: doc is missing ${what}: ${JSON.stringify(path)}`);
  }
  return value;
}

function mutate(doc: JsonValue, operation: jsonpatch.Operation): JsonValue {
  try {
    return lib().applyOperation(doc, operation, false, true, true).newDocument as JsonValue;
  } catch (err) {
    // The library refuses "__proto__" and "constructor/prototype" segments to rule out prototype pollution;
    // that guard is kept, and reported as a patch that cannot be applied rather than a server fault.
    if (err instanceof TypeError) {
      throw unprocessable(`${operation.op} operation does not apply: path ${JSON.stringify(operation.path)} uses a reserved segment (__proto__ or constructor/prototype)`);
    }
    throw err;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  return `a JSON ${jsonKind(value as JsonValue)}`;
}
