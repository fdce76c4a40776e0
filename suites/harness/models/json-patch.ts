// RFC 6902 JSON patch (with RFC 6901 pointers) as a model for the patch suite. Returns the patched document
// or the reason the whole patch must be refused; a refused patch changes nothing.
import { clone, deepEqual, isObject, type JsonValue } from './json.ts';

export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export type JsonPatchResult = { ok: true; doc: JsonValue } | { ok: false; reason: string };

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`"${pointer}" is not a JSON pointer`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = JsonValue[] | Record<string, JsonValue>;

function arrayIndex(token: string, length: number, forAdd: boolean): number {
  if (forAdd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`"${token}" is not an array index`);
  const i = Number(token);
  if (i > length || (!forAdd && i === length)) throw new Error(`index ${i} out of range`);
  return i;
}

/** The parent container and last token of a pointer; throws when the parent does not exist. */
function locate(doc: JsonValue, tokens: string[]): { parent: Container; key: string } {
  let cur: JsonValue = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false)];
    else if (isObject(cur) && Object.prototype.hasOwnProperty.call(cur, t)) cur = cur[t];
    else throw new Error(`path segment "${t}" not found`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw new Error('parent is not a container');
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function read(doc: JsonValue, pointer: string): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return doc;
  const { parent, key } = locate(doc, tokens);
  if (Array.isArray(parent)) return parent[arrayIndex(key, parent.length, false)];
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new Error(`"${pointer}" not found`);
  return parent[key];
}

function remove(doc: JsonValue, pointer: string): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new Error('cannot remove the root');
  const { parent, key } = locate(doc, tokens);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(key, parent.length, false), 1)[0];
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new Error(`"${pointer}" not found`);
  const old = parent[key];
  delete parent[key];
  return old;
}

function add(doc: JsonValue, pointer: string, value: JsonValue): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = locate(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true), 0, value);
  else parent[key] = value;
  return doc;
}

export function applyJsonPatch(document: JsonValue, ops: JsonPatchOp[]): JsonPatchResult {
  let doc = clone(document);
  try {
    for (const op of ops) {
      switch (op.op) {
        case 'add':
          doc = add(doc, op.path, clone(op.value));
          break;
        case 'remove':
          remove(doc, op.path);
          break;
        case 'replace':
          read(doc, op.path);
          if (op.path === '') doc = clone(op.value);
          else {
            remove(doc, op.path);
            doc = add(doc, op.path, clone(op.value));
          }
          break;
        case 'test':
          if (!deepEqual(read(doc, op.path), op.value)) throw new Error(`test of ${op.path} failed`);
          break;
        case 'copy':
          doc = add(doc, op.path, clone(read(doc, op.from)));
          break;
        case 'move': {
          if (op.path.startsWith(`${op.from}/`)) throw new Error('cannot move a value into itself');
          const value = remove(doc, op.from);
          doc = add(doc, op.path, value);
          break;
        }
      }
    }
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  return { ok: true, doc };
}
