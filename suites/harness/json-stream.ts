// A watch over JSON is a sequence of JSON documents. The real server ends each with a newline, but the
// framing is the JSON itself, so this reader finds value boundaries by scanning (strings, escapes, nesting)
// rather than splitting on newlines: a document may contain escaped newlines or arrive split anywhere.

export class JsonStreamError extends Error {
  override name = 'JsonStreamError';
}

export class JsonValueSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private scanFrom = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  private valueStart = 0;

  /** Feeds bytes; returns every complete top-level JSON value they finish, parsed. */
  push(chunk: Uint8Array): unknown[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const values: unknown[] = [];
    let i = this.scanFrom;
    const buf = this.pending;
    for (; i < buf.length; i++) {
      const c = buf[i];
      if (!this.started) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (c !== 0x7b && c !== 0x5b) {
          throw new JsonStreamError(`expected a JSON object or array at byte ${i}, got ${JSON.stringify(String.fromCharCode(c))}`);
        }
        this.started = true;
        this.valueStart = i;
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
          const text = buf.subarray(this.valueStart, i + 1).toString('utf8');
          try {
            values.push(JSON.parse(text));
          } catch (err) {
            throw new JsonStreamError(`invalid JSON document in stream: ${(err as Error).message}`);
          }
          this.started = false;
        }
      }
    }
    // Keep only the unfinished value so memory stays bounded by one document.
    const keepFrom = this.started ? this.valueStart : buf.length;
    this.pending = buf.subarray(keepFrom);
    this.scanFrom = i - keepFrom;
    this.valueStart -= keepFrom;
    return values;
  }

  /** True when bytes of an unfinished document are held (a stream that ends here was cut). */
  get hasPartial(): boolean {
    return this.started;
  }
}
