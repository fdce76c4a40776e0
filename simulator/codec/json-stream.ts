// Splits a JSON watch stream into its top-level objects (the controller daemon's client and the suites' target
// client both read watches through it). The server writes one object per event followed by "\n", but readers
// must not rely on newlines (wire-facts 1.3: clients use a JSON decoder), so this scanner follows braces and
// strings across chunk boundaries. Bytes are kept as Buffers until an object is complete so multi-byte UTF-8
// characters split between chunks decode correctly.

import { parseJson } from '../util/int64-json.ts';

export class JsonStreamError extends Error {}

export class JsonObjectSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private readonly maxObjectBytes: number;

  constructor(opts: { maxObjectBytes?: number } = {}) {
    this.maxObjectBytes = opts.maxObjectBytes ?? 64 * 1024 * 1024;
  }

  /** Feeds bytes; returns every object completed by them. Throws JsonStreamError on malformed input. */
  push(chunk: Uint8Array): unknown[] {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: unknown[] = [];
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i];
      if (this.depth === 0) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          start = i + 1;
          continue;
        }
        if (c !== 0x7b) throw new JsonStreamError(`unexpected byte ${JSON.stringify(String.fromCharCode(c))} between watch events`);
        // The common framing first: one object per line, as this server and the real one write them. A raw newline
        // never occurs inside a JSON string, so a line ending in "}" that parses is one whole object, found by one
        // native search and one parse instead of a JavaScript loop over every byte (the scan below was the largest
        // cost of a controller's watch in the scale bench). Anything else (a pretty-printed object over several
        // lines, two objects on a line, a line cut by the end of the chunk) is scanned byte by byte.
        const nl = buf.indexOf(0x0a, i);
        if (nl > 0) {
          let end = nl;
          while (end > i && (buf[end - 1] === 0x0d || buf[end - 1] === 0x20 || buf[end - 1] === 0x09)) end--;
          if (buf[end - 1] === 0x7d) {
            const value = parseOrUndefined(buf.toString('utf8', i, end));
            if (value !== undefined) {
              out.push(value);
              i = nl;
              start = nl + 1;
              continue;
            }
          }
        }
        start = i;
        this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        this.depth--;
        if (this.depth === 0) {
          this.pending.push(buf.subarray(start, i + 1));
          const text = Buffer.concat(this.pending).toString('utf8');
          this.pending = [];
          this.pendingLength = 0;
          try {
            out.push(parseJson(text));
          } catch (err) {
            throw new JsonStreamError(`malformed watch event: ${(err as Error).message}`);
          }
          start = i + 1;
        }
      }
    }
    if (this.depth > 0) {
      const rest = buf.subarray(start);
      this.pending.push(Buffer.from(rest));
      this.pendingLength += rest.length;
      if (this.pendingLength > this.maxObjectBytes) throw new JsonStreamError(`watch event larger than ${this.maxObjectBytes} bytes`);
    }
    return out;
  }

  /** True when the stream ended in the middle of an object. */
  get incomplete(): boolean {
    return this.depth > 0;
  }
}

/** JSON.parse, or undefined when the text is not one JSON value (the caller then scans it). */
function parseOrUndefined(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}
