// Bounds on the shape of decoded request data, checked before anything walks it. Every consumer of a body
// (shape check, conversion, defaulting, patch engines, protobuf encoder, structuredClone) recurses over the
// document, so a document nested thousands of levels deep would exhaust the stack inside one of them (a 500
// "Maximum call stack size exceeded"), and a YAML document whose aliases share one node many times would
// expand into a huge object the moment anything copies it ("billion laughs"). Both are refused here, in
// time linear in the size of the text or of the distinct nodes, with a plain Error the caller turns into
// 400 (or 413 for expansion beyond the body limit).
//
// The deepest field path of any served kind is under 20 levels (a CronJob's
// spec.jobTemplate.spec.template.spec.affinity...matchExpressions[].values[]), so 100 leaves room for
// free-form fields while staying far below any stack limit.

export const MAX_NESTING_DEPTH = 100;

export class DocumentLimitError extends Error {
  constructor(
    message: string,
    /** 'depth' and 'alias' are 400; 'size' (expansion beyond the body limit) is 413. */
    readonly limit: 'depth' | 'alias' | 'size' | 'cycle',
  ) {
    super(message);
    this.name = 'DocumentLimitError';
  }
}

const depthMessage = (max: number) => `the document is nested more than ${max} levels deep`;

/**
 * Throws when the JSON text nests arrays/objects deeper than `max`. A scan of the characters (strings and
 * their escapes skipped), so it runs before JSON.parse and costs one pass.
 */
export function checkJsonTextDepth(text: string, max = MAX_NESTING_DEPTH): void {
  // No deeper than the number of openings: when there are at most `max` of them in the whole text (most bodies
  // have a handful), counting them with native scans answers without the walk.
  if (openingsAtMost(text, max)) return;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // The string's end: the next quote not escaped (an odd run of backslashes before it escapes it). indexOf
      // skips the characters of a string many times faster than a loop over them would.
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) {
          i = n;
          break;
        }
        let b = q - 1;
        while (b > i && text.charCodeAt(b) === 0x5c /* \ */) b--;
        if ((q - 1 - b) % 2 === 0) {
          i = q;
          break;
        }
        from = q + 1;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) throw new DocumentLimitError(depthMessage(max), 'depth');
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
}

/** Whether the text holds at most `max` "{" and "[" characters, strings included (an upper bound of the depth). */
function openingsAtMost(text: string, max: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++n > max) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++n > max) return false;
  return true;
}

export interface ExpansionLimits {
  /** Deepest nesting allowed. */
  maxDepth?: number;
  /** Largest expanded size (roughly the bytes of its JSON) allowed at all: beyond it 'size' (413). */
  maxBytes?: number;
  /** Largest expanded size allowed relative to the source text: beyond it 'alias' (400). */
  maxRatio?: number;
  /** Length of the source text the ratio applies to. */
  sourceLength?: number;
}

/**
 * Checks a decoded value (YAML with anchors and aliases, or a protobuf-embedded document) without expanding
 * it: the expanded size of every distinct node is computed once (memoised by identity), so a document whose
 * aliases multiply its size is measured in time linear in its distinct nodes. A node that contains itself
 * (a recursive alias) is refused as well: it can never be written as JSON.
 */
export function checkExpandedValue(value: unknown, limits: ExpansionLimits = {}): void {
  const maxDepth = limits.maxDepth ?? MAX_NESTING_DEPTH;
  const maxBytes = limits.maxBytes ?? Infinity;
  const ratioCap = limits.maxRatio !== undefined && limits.sourceLength !== undefined ? limits.maxRatio * limits.sourceLength + 4096 : Infinity;
  const sizes = new Map<object, number>();
  const onPath = new Set<object>();
  // Iterative post-order walk: frames hold the node, its children and where the walk is.
  interface Frame {
    node: object;
    children: unknown[];
    next: number;
    size: number;
  }
  const stack: Frame[] = [];
  const childrenOf = (o: object): unknown[] => (Array.isArray(o) ? o : Object.values(o));
  const keyBytes = (o: object): number => (Array.isArray(o) ? 0 : Object.keys(o).reduce((n, k) => n + k.length + 3, 0));
  const leafSize = (v: unknown): number => (typeof v === 'string' ? v.length + 2 : 8);
  const push = (o: object) => {
    if (stack.length >= maxDepth) throw new DocumentLimitError(depthMessage(maxDepth), 'depth');
    onPath.add(o);
    stack.push({ node: o, children: childrenOf(o), next: 0, size: 2 + keyBytes(o) });
  };
  const check = (total: number) => {
    if (total > maxBytes) throw new DocumentLimitError(`the document expands to more than ${maxBytes} bytes`, 'size');
    if (total > ratioCap) throw new DocumentLimitError('the document expands to many times its own size through aliases', 'alias');
  };
  if (value === null || typeof value !== 'object') return;
  push(value);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (f.next < f.children.length) {
      const child = f.children[f.next++];
      if (child !== null && typeof child === 'object') {
        const known = sizes.get(child);
        if (known !== undefined) f.size += known;
        else if (onPath.has(child)) throw new DocumentLimitError('the document refers to itself through an alias', 'cycle');
        else push(child);
      } else f.size += leafSize(child);
      check(f.size);
      continue;
    }
    stack.pop();
    onPath.delete(f.node);
    sizes.set(f.node, f.size);
    if (stack.length > 0) {
      const parent = stack[stack.length - 1];
      parent.size += f.size;
      check(parent.size);
    }
  }
}
