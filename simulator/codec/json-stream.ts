// Splits a JSON watch stream into its top-level objects (the controller daemon's client and the suites' target
// client both read watches through it). The server writes one object per event followed by "\n", but readers
// must not rely on newlines (wire-facts 1.3: clients use a JSON decoder), so this scanner follows braces and
// strings across chunk boundaries. Bytes are kept as Buffers until an object is complete so multi-byte UTF-8
// characters split between chunks decode correctly.

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
            out.push(JSON.parse(text));
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
