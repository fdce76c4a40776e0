// A minimal protobuf wire reader for the envelope of spec 2.6, written from the protobuf encoding rules and the
// spec's field numbers alone: four prefix bytes, then message Unknown { typeMeta = 1 (TypeMeta { apiVersion = 1,
// kind = 2 }), raw = 2 (bytes), contentEncoding = 3, contentType = 4 }. It deliberately shares nothing with the
// simulator's codec, so a black-box check of the envelope does not trust the implementation it judges.

export const ENVELOPE_PREFIX = [0x6b, 0x38, 0x73, 0x00] as const;

export interface WireField {
  field: number;
  wireType: number;
  /** varint / fixed values as bigint; length-delimited values as bytes. */
  value: bigint | Uint8Array;
}

export class WireError extends Error {}

function readVarint(buf: Uint8Array, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new WireError(`varint runs past the end at byte ${pos}`);
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
  throw new WireError(`varint longer than 10 bytes at byte ${pos}`);
}

/** Every field of one message, in wire order. Throws WireError on malformed input. */
export function readFields(buf: Uint8Array): WireField[] {
  const out: WireField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (field === 0) throw new WireError(`field number 0 at byte ${pos}`);
    switch (wireType) {
      case 0: {
        const [v, p] = readVarint(buf, pos);
        out.push({ field, wireType, value: v });
        pos = p;
        break;
      }
      case 1:
      case 5: {
        const n = wireType === 1 ? 8 : 4;
        if (pos + n > buf.length) throw new WireError(`fixed${n * 8} runs past the end`);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(buf[pos + i]);
        out.push({ field, wireType, value: v });
        pos += n;
        break;
      }
      case 2: {
        const [len, p] = readVarint(buf, pos);
        const end = p + Number(len);
        if (end > buf.length) throw new WireError(`length-delimited field ${field} (${len} bytes) runs past the end`);
        out.push({ field, wireType, value: buf.subarray(p, end) });
        pos = end;
        break;
      }
      default:
        throw new WireError(`unsupported wire type ${wireType} for field ${field}`);
    }
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface Envelope {
  typeMeta?: { apiVersion?: string; kind?: string };
  raw?: Uint8Array;
  contentEncoding?: string;
  contentType?: string;
  /** Field numbers of Unknown that the spec does not name. */
  otherFields: number[];
}

function bytesOf(f: WireField, what: string): Uint8Array {
  if (f.wireType !== 2 || !(f.value instanceof Uint8Array)) throw new WireError(`${what} is not length-delimited (wire type ${f.wireType})`);
  return f.value;
}

function stringOf(f: WireField, what: string): string {
  try {
    return utf8.decode(bytesOf(f, what));
  } catch (e) {
    if (e instanceof WireError) throw e;
    throw new WireError(`${what} is not UTF-8`);
  }
}

export function hasEnvelopePrefix(body: Uint8Array): boolean {
  return body.length >= 4 && ENVELOPE_PREFIX.every((b, i) => body[i] === b);
}

/** Decodes prefix + Unknown; the last occurrence of a field wins, as protobuf readers do. */
export function decodeEnvelope(body: Uint8Array): Envelope {
  if (!hasEnvelopePrefix(body)) throw new WireError(`body does not start with 6b 38 73 00 (starts ${Buffer.from(body.subarray(0, 4)).toString('hex')})`);
  const env: Envelope = { otherFields: [] };
  for (const f of readFields(body.subarray(4))) {
    if (f.field === 1) {
      const tm: { apiVersion?: string; kind?: string } = {};
      for (const g of readFields(bytesOf(f, 'typeMeta'))) {
        if (g.field === 1) tm.apiVersion = stringOf(g, 'typeMeta.apiVersion');
        else if (g.field === 2) tm.kind = stringOf(g, 'typeMeta.kind');
      }
      env.typeMeta = tm;
    } else if (f.field === 2) env.raw = bytesOf(f, 'raw');
    else if (f.field === 3) env.contentEncoding = stringOf(f, 'contentEncoding');
    else if (f.field === 4) env.contentType = stringOf(f, 'contentType');
    else env.otherFields.push(f.field);
  }
  return env;
}

/** A string field of a nested message at a path of field numbers, e.g. [1, 1] = metadata.name; undefined when absent. */
export function stringAt(message: Uint8Array, path: readonly number[]): string | undefined {
  let cur = message;
  for (let i = 0; i < path.length; i++) {
    const hits = readFields(cur).filter((f) => f.field === path[i]);
    const last = hits[hits.length - 1];
    if (!last) return undefined;
    if (i === path.length - 1) return stringOf(last, `field ${path.join('.')}`);
    cur = bytesOf(last, `field ${path.slice(0, i + 1).join('.')}`);
  }
  return undefined;
}
