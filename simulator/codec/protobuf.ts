// application/vnd.kubernetes.protobuf: the JSON (wire) form of an object <-> the bytes the real API
// server reads and writes (spec 2.6, wire-facts 1.2 and 1.3).
//
// The message shapes come from our .proto files (protobuf-schema.ts, parsed by protobufjs). The
// conversion itself is written here rather than left to protobufjs's generated message codecs for
// three reasons: the bytes must match gogo's marshalling (non-pointer fields always written, even
// when empty; pointer fields only when set; map entries sorted by key), which protobufjs's presence
// rules do not express; the JSON side follows Go's encoding/json conventions (omitempty, inline
// structs, Time as RFC 3339, IntOrString as a bare value, bytes as base64) rather than proto3 JSON;
// and going straight from JSON to bytes and back avoids building an intermediate message object per
// call. protobufjs still provides the wire primitives (Writer, Reader). One compiled converter is
// cached per message type, so no reflection lookups happen per call.

// The minimal build (reader, writer: a few modules); the .proto parser of the full library is loaded only by
// codec/protobuf-schema.ts when a type's schema is first needed.
import protobuf from 'protobufjs/minimal.js';
import {
  hasProtobuf,
  messageNameForKind,
  protoMessage,
  type ProtoField,
  type ProtoMessage,
  type ValueKind,
} from './protobuf-schema.ts';

export { hasProtobuf };

/** "k8s" + encoding byte 0: the prefix of every non-stream protobuf body. */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_STREAM_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

import { ProtobufDecodeError, ProtobufEncodeError } from './errors.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';
import { FrameSplitter } from './frames.ts';
import { formatDurationNanos, formatMicroTime, formatTime, GO_ZERO_SECONDS, parseDurationNanos, parseRfc3339 } from './time-text.ts';

export { ProtobufDecodeError, ProtobufEncodeError };

type Json = Record<string, unknown>;
type Writer = protobuf.Writer;
type Reader = protobuf.Reader;

const WIRE_VARINT = 0;
const WIRE_LEN = 2;

// ---------------------------------------------------------------------------------------------
// JSON conventions of special types

// Objects share few distinct timestamps (a list's conditions and creation times repeat), so small
// memo tables save most of the date arithmetic; they are emptied when full to stay bounded.
const MEMO_LIMIT = 4096;
const parsedTimes = new Map<string, { seconds: number; nanos: number }>();
const formattedTimes = new Map<number, string | null>();

function parseTimeMemo(text: string): { seconds: number; nanos: number } {
  let t = parsedTimes.get(text);
  if (t === undefined) {
    t = parseRfc3339(text);
    if (parsedTimes.size >= MEMO_LIMIT) parsedTimes.clear();
    parsedTimes.set(text, t);
  }
  return t;
}

function formatTimeMemo(seconds: number): string | null {
  let t = formattedTimes.get(seconds);
  if (t === undefined) {
    t = formatTime(seconds);
    if (formattedTimes.size >= MEMO_LIMIT) formattedTimes.clear();
    formattedTimes.set(seconds, t);
  }
  return t;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// ---------------------------------------------------------------------------------------------
// value codecs: how one value of a kind is written (after its tag) and read (after its tag)

interface ValueCodec {
  readonly wireType: 0 | 2;
  /** Writes v; null and undefined mean the Go zero value. */
  write(w: Writer, v: unknown): void;
  /** Reads one value whose tag has been consumed; `end` bounds the enclosing message. */
  read(r: Reader, end: number): unknown;
  /** JSON of the Go zero value (a fresh object for object-valued kinds). */
  zero(): unknown;
  /** Whether v is the JSON zero value (omitempty drops it). */
  isZero(v: unknown): boolean;
}

function typeError(expected: string, v: unknown): ProtobufEncodeError {
  const got = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  return new ProtobufEncodeError(`expected ${expected}, got ${got}`);
}

/** A number where a double holds the value exactly, else a BigInt (int64 exact, as the real server keeps it). */
function int64Of(v: number | protobuf.Long): number | bigint {
  if (typeof v === 'number') return v;
  const n = (v.unsigned ? v.high >>> 0 : v.high) * 4294967296 + (v.low >>> 0);
  return Number.isSafeInteger(n) ? n : BigInt(v.toString());
}

/** int64Of where the field's range is small enough for a double (times in seconds, an IntOrString's type). */
function smallInt64Of(v: number | protobuf.Long): number {
  return Number(int64Of(v));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** What protobufjs's writer takes for a 64-bit value: a BigInt goes as its decimal text (read through Long). */
function longArg(v: unknown): number | string {
  return typeof v === 'bigint' ? v.toString() : (v as number);
}

/** Start and end of a length-delimited value, checked against the enclosing bound. */
function subEnd(r: Reader, end: number): number {
  const len = r.uint32();
  const e = r.pos + len;
  if (e > end) throw new ProtobufDecodeError(`a length-delimited field (${len} bytes) runs past the end of its message`);
  return e;
}

function expectEnd(r: Reader, end: number): void {
  if (r.pos !== end) throw new ProtobufDecodeError('a field runs past the end of its message');
}

/** Reads the fields of a small message with a callback per field number; unknown fields are skipped. */
function readFields(r: Reader, end: number, onField: (id: number, wireType: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.uint32();
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 0) throw new ProtobufDecodeError('field number 0 is invalid');
    if (!onField(id, wt)) r.skipType(wt);
  }
  expectEnd(r, end);
}

function wantWire(name: string, wt: number, expected: number): void {
  if (wt !== expected) throw new ProtobufDecodeError(`field ${name} has wire type ${wt}, expected ${expected}`);
}

const zeroIs = (z: unknown) => (v: unknown) => v === z;

const SCALAR_CODECS: Readonly<Record<'string' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'bytes', ValueCodec>> = {
  string: {
    wireType: WIRE_LEN,
    write(w, v) {
      if (v == null) w.string('');
      else if (typeof v === 'string') w.string(v);
      else throw typeError('a string', v);
    },
    read: (r) => r.string(),
    zero: () => '',
    isZero: zeroIs(''),
  },
  bool: {
    wireType: WIRE_VARINT,
    write(w, v) {
      if (v == null) w.bool(false);
      else if (typeof v === 'boolean') w.bool(v);
      else throw typeError('a boolean', v);
    },
    read: (r) => r.bool(),
    zero: () => false,
    isZero: zeroIs(false),
  },
  int32: {
    wireType: WIRE_VARINT,
    write(w, v) {
      if (v == null) w.int32(0);
      else if (Number.isInteger(v) && (v as number) >= -2147483648 && (v as number) <= 2147483647) w.int32(v as number);
      else throw typeError('a 32-bit integer', v);
    },
    read: (r) => r.int32(),
    zero: () => 0,
    isZero: zeroIs(0),
  },
  int64: {
    wireType: WIRE_VARINT,
    write(w, v) {
      if (v == null) w.int64(0);
      else if (Number.isInteger(v) && Math.abs(v as number) <= 2 ** 63) w.int64(v as number);
      else if (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX) w.int64(longArg(v));
      else throw typeError('a 64-bit integer', v);
    },
    read: (r) => int64Of(r.int64()),
    zero: () => 0,
    isZero: zeroIs(0),
  },
  uint32: {
    wireType: WIRE_VARINT,
    write(w, v) {
      if (v == null) w.uint32(0);
      else if (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 4294967295) w.uint32(v as number);
      else throw typeError('an unsigned 32-bit integer', v);
    },
    read: (r) => r.uint32(),
    zero: () => 0,
    isZero: zeroIs(0),
  },
  uint64: {
    wireType: WIRE_VARINT,
    write(w, v) {
      if (v == null) w.uint64(0);
      else if (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 2 ** 64) w.uint64(v as number);
      else if (typeof v === 'bigint' && v >= 0n && v <= UINT64_MAX) w.uint64(longArg(v));
      else throw typeError('an unsigned integer', v);
    },
    read: (r) => int64Of(r.uint64()),
    zero: () => 0,
    isZero: zeroIs(0),
  },
  bytes: {
    wireType: WIRE_LEN,
    write(w, v) {
      if (v == null) w.bytes(EMPTY);
      else if (typeof v === 'string') {
        if (!BASE64.test(v)) throw new ProtobufEncodeError('expected base64 (standard alphabet, padded)');
        w.bytes(Buffer.from(v, 'base64'));
      } else if (v instanceof Uint8Array) w.bytes(v);
      else throw typeError('a base64 string', v);
    },
    read: (r) => toBuffer(r.bytes()).toString('base64'),
    zero: () => '',
    isZero: zeroIs(''),
  },
};

const EMPTY = Buffer.alloc(0);

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Codecs of the messages whose JSON form is not an object. Each writes a length-delimited body. */
const SPECIAL_CODECS: Readonly<Record<Exclude<ValueKind, keyof typeof SCALAR_CODECS | 'message'>, ValueCodec>> = {
  // Go writes a non-zero Time as Timestamp{seconds, nanos = 0} (time_proto.go drops the fraction)
  // and a zero Time as an empty body; reading ignores nanos.
  time: {
    wireType: WIRE_LEN,
    write(w, v) {
      w.fork();
      if (v != null) {
        if (typeof v !== 'string') throw typeError('an RFC 3339 time string or null', v);
        const { seconds } = parseTimeMemo(v);
        if (seconds !== GO_ZERO_SECONDS) w.uint32(0x08).int64(seconds).uint32(0x10).int32(0);
      }
      w.ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      if (e === r.pos) return null;
      let seconds = 0;
      readFields(r, e, (id, wt) => {
        if (id !== 1) return false;
        wantWire('seconds', wt, WIRE_VARINT);
        seconds = smallInt64Of(r.int64());
        return true;
      });
      return formatTimeMemo(seconds);
    },
    zero: () => null,
    isZero: zeroIs(null),
  },
  microtime: {
    wireType: WIRE_LEN,
    write(w, v) {
      w.fork();
      if (v != null) {
        if (typeof v !== 'string') throw typeError('an RFC 3339 time string or null', v);
        const { seconds, nanos } = parseRfc3339(v);
        const micros = Math.floor(nanos / 1000) * 1000;
        if (seconds !== GO_ZERO_SECONDS || micros !== 0) w.uint32(0x08).int64(seconds).uint32(0x10).int32(micros);
      }
      w.ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      if (e === r.pos) return null;
      let seconds = 0;
      let nanos = 0;
      readFields(r, e, (id, wt) => {
        if (id === 1) {
          wantWire('seconds', wt, WIRE_VARINT);
          seconds = smallInt64Of(r.int64());
        } else if (id === 2) {
          wantWire('nanos', wt, WIRE_VARINT);
          nanos = r.int32();
        } else return false;
        return true;
      });
      return formatMicroTime(seconds, nanos);
    },
    zero: () => null,
    isZero: zeroIs(null),
  },
  duration: {
    wireType: WIRE_LEN,
    write(w, v) {
      let nanos = 0;
      if (v != null) {
        if (typeof v !== 'string') throw typeError('a duration string', v);
        nanos = parseDurationNanos(v);
      }
      w.fork().uint32(0x08).int64(nanos).ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      let nanos = 0;
      readFields(r, e, (id, wt) => {
        if (id !== 1) return false;
        wantWire('duration', wt, WIRE_VARINT);
        nanos = smallInt64Of(r.int64());
        return true;
      });
      return formatDurationNanos(nanos);
    },
    zero: () => '0s',
    isZero: zeroIs('0s'),
  },
  // All three fields are always written: type (0 = int, 1 = string), intVal, strVal.
  intstr: {
    wireType: WIRE_LEN,
    write(w, v) {
      w.fork();
      if (v == null) w.uint32(0x08).int64(0).uint32(0x10).int32(0).uint32(0x1a).string('');
      else if (typeof v === 'string') w.uint32(0x08).int64(1).uint32(0x10).int32(0).uint32(0x1a).string(v);
      else if (Number.isInteger(v) && (v as number) >= -2147483648 && (v as number) <= 2147483647) {
        w.uint32(0x08).int64(0).uint32(0x10).int32(v as number).uint32(0x1a).string('');
      } else throw typeError('a 32-bit integer or a string', v);
      w.ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      let type = 0;
      let intVal = 0;
      let strVal = '';
      readFields(r, e, (id, wt) => {
        if (id === 1) {
          wantWire('type', wt, WIRE_VARINT);
          type = smallInt64Of(r.int64());
        } else if (id === 2) {
          wantWire('intVal', wt, WIRE_VARINT);
          intVal = r.int32();
        } else if (id === 3) {
          wantWire('strVal', wt, WIRE_LEN);
          strVal = r.string();
        } else return false;
        return true;
      });
      return type === 1 ? strVal : intVal;
    },
    zero: () => 0,
    isZero: zeroIs(0),
  },
  // A Quantity always writes its canonical string; the zero Quantity is "0".
  quantity: {
    wireType: WIRE_LEN,
    write(w, v) {
      let s: string;
      if (v == null) s = '0';
      else if (typeof v === 'string') s = v;
      else if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint') s = String(v);
      else throw typeError('a quantity string', v);
      w.fork().uint32(0x0a).string(s).ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      let s = '0';
      readFields(r, e, (id, wt) => {
        if (id !== 1) return false;
        wantWire('string', wt, WIRE_LEN);
        s = r.string();
        return true;
      });
      return s;
    },
    zero: () => '0',
    isZero: zeroIs('0'),
  },
  // The embedded object: enveloped protobuf when it is a kind we know, else its JSON bytes.
  raw: {
    wireType: WIRE_LEN,
    write(w, v) {
      w.fork();
      if (v !== undefined && v !== null) w.uint32(0x0a).bytes(rawBytesOf(v));
      w.ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      let value: unknown = null;
      readFields(r, e, (id, wt) => {
        if (id !== 1) return false;
        wantWire('raw', wt, WIRE_LEN);
        value = rawValueOf(r.bytes());
        return true;
      });
      return value;
    },
    zero: () => null,
    isZero: zeroIs(null),
  },
  // Verbs, ExtraValue: a string array wrapped in a message with items = 1.
  stringlist: {
    wireType: WIRE_LEN,
    write(w, v) {
      w.fork();
      if (v != null) {
        if (!Array.isArray(v)) throw typeError('an array of strings', v);
        for (const s of v) {
          if (typeof s !== 'string' && s != null) throw typeError('a string', s);
          w.uint32(0x0a).string((s as string | null) ?? '');
        }
      }
      w.ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      const items: string[] = [];
      readFields(r, e, (id, wt) => {
        if (id !== 1) return false;
        wantWire('items', wt, WIRE_LEN);
        items.push(r.string());
        return true;
      });
      return items;
    },
    zero: () => [],
    isZero: (v) => Array.isArray(v) && v.length === 0,
  },
};

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function rawBytesOf(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (isPlainObject(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string' && hasProtobuf(v.apiVersion, v.kind)) {
    return encodeObject(v);
  }
  return Buffer.from(stringifyJson(v), 'utf8');
}

function rawValueOf(bytes: Uint8Array): unknown {
  if (startsWithMagic(bytes)) return decodeObject(bytes);
  try {
    return parseJson(toBuffer(bytes).toString('utf8'));
  } catch {
    throw new ProtobufDecodeError('an embedded object is neither protobuf nor JSON');
  }
}

// ---------------------------------------------------------------------------------------------
// message codecs

type FieldWriter = (w: Writer, src: Json) => void;
type FieldReader = (r: Reader, wireType: number, end: number, slots: unknown[]) => void;
type FieldEmitter = (out: Json, slot: unknown) => void;

function setOwn(obj: Json, key: string, value: unknown): void {
  // "__proto__" as a map key must become a property, not the prototype.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** The compiled converter of one message type. */
class MessageCodec {
  private writers: FieldWriter[] = [];
  private writerNames: string[] = [];
  private readers: Array<FieldReader | undefined> = [];
  private emitters: FieldEmitter[] = [];
  private built = false;

  constructor(readonly message: ProtoMessage) {}

  /** Builds the per-field closures; deferred so that message types may refer to each other. */
  build(): void {
    if (this.built) return;
    this.built = true;
    const byNumber = [...this.message.fields].sort((a, b) => a.id - b.id);
    for (const f of byNumber) {
      this.writers.push(fieldWriter(f));
      this.writerNames.push(f.name);
    }
    this.message.fields.forEach((f, index) => {
      this.readers[f.id] = fieldReader(f, index);
      this.emitters.push(fieldEmitter(f));
    });
  }

  /** Writes the fields of src (without a tag or length). */
  encode(w: Writer, src: Json): void {
    if (!this.built) this.build();
    const writers = this.writers;
    let i = 0;
    try {
      for (; i < writers.length; i++) writers[i](w, src);
    } catch (e) {
      if (e instanceof ProtobufEncodeError) throw e.within(this.writerNames[i]);
      throw e;
    }
  }

  /** Reads fields up to `end` and returns the JSON form in declaration order. */
  decode(r: Reader, end: number): Json {
    if (!this.built) this.build();
    const readers = this.readers;
    const slots: unknown[] = new Array(this.emitters.length);
    while (r.pos < end) {
      const tag = r.uint32();
      const id = tag >>> 3;
      const wt = tag & 7;
      const read = id < readers.length ? readers[id] : undefined;
      if (read !== undefined) read(r, wt, end, slots);
      else if (id === 0) throw new ProtobufDecodeError(`${this.message.fullName}: field number 0 is invalid`);
      else r.skipType(wt);
    }
    if (r.pos !== end) throw new ProtobufDecodeError(`${this.message.fullName}: a field runs past the end of the message`);
    const out: Json = {};
    const emitters = this.emitters;
    for (let i = 0; i < emitters.length; i++) emitters[i](out, slots[i]);
    return out;
  }

  /** JSON of the zero value of this message (what Go shows for an absent non-pointer struct). */
  zero(): Json {
    return this.decode(EMPTY_READER, 0);
  }
}

const EMPTY_READER = protobuf.Reader.create(EMPTY);

const messageCodecs = new Map<string, MessageCodec>();

function messageCodec(fullName: string): MessageCodec {
  let codec = messageCodecs.get(fullName);
  if (!codec) {
    const msg = protoMessage(fullName);
    if (!msg) throw new Error(`protobuf: no message ${fullName}`);
    codec = new MessageCodec(msg);
    messageCodecs.set(fullName, codec);
  }
  return codec;
}

function messageValueCodec(fullName: string): ValueCodec {
  const codec = messageCodec(fullName);
  return {
    wireType: WIRE_LEN,
    write(w, v) {
      if (v != null && !isPlainObject(v)) throw typeError('an object', v);
      w.fork();
      codec.encode(w, (v as Json | null | undefined) ?? {});
      w.ldelim();
    },
    read(r, end) {
      const e = subEnd(r, end);
      return codec.decode(r, e);
    },
    zero: () => codec.zero(),
    isZero: () => false,
  };
}

function valueCodecOf(f: ProtoField): ValueCodec {
  if (f.kind === 'message') return messageValueCodec(f.messageName as string);
  if (f.kind in SCALAR_CODECS) return SCALAR_CODECS[f.kind as keyof typeof SCALAR_CODECS];
  return SPECIAL_CODECS[f.kind as keyof typeof SPECIAL_CODECS];
}

function fieldWriter(f: ProtoField): FieldWriter {
  const vc = valueCodecOf(f);
  const name = f.name;
  const tag = ((f.id << 3) | vc.wireType) >>> 0;

  if (f.mapKey) {
    const entryValueTag = ((2 << 3) | vc.wireType) >>> 0;
    // gogo leaves out the value of a nil []byte; every other value is always written.
    const skipNullValue = f.kind === 'bytes';
    return (w, src) => {
      const m = src[name];
      if (m == null) return;
      if (!isPlainObject(m)) throw typeError('an object (map)', m);
      const keys = Object.keys(m).sort();
      for (const k of keys) {
        const v = m[k];
        w.uint32(tag).fork().uint32(0x0a).string(k);
        if (!(skipNullValue && v == null)) {
          w.uint32(entryValueTag);
          try {
            vc.write(w, v);
          } catch (e) {
            if (e instanceof ProtobufEncodeError) throw e.within(k);
            throw e;
          }
        }
        w.ldelim();
      }
    };
  }

  if (f.repeated) {
    return (w, src) => {
      const list = src[name];
      if (list == null) return;
      if (!Array.isArray(list)) throw typeError('an array', list);
      for (let i = 0; i < list.length; i++) {
        w.uint32(tag);
        try {
          vc.write(w, list[i]);
        } catch (e) {
          if (e instanceof ProtobufEncodeError) throw e.within(`[${i}]`);
          throw e;
        }
      }
    };
  }

  if (f.inline) {
    // The embedded struct's fields live in the parent's JSON object.
    const inner = messageCodec(f.messageName as string);
    return (w, src) => {
      w.uint32(tag).fork();
      inner.encode(w, src);
      w.ldelim();
    };
  }

  if (f.pointer) {
    return (w, src) => {
      const v = src[name];
      if (v === undefined || v === null) return;
      w.uint32(tag);
      vc.write(w, v);
    };
  }

  return (w, src) => {
    w.uint32(tag);
    vc.write(w, src[name]);
  };
}

const PACKABLE: ReadonlySet<ValueKind> = new Set<ValueKind>(['bool', 'int32', 'int64', 'uint32', 'uint64']);

function fieldReader(f: ProtoField, index: number): FieldReader {
  const vc = valueCodecOf(f);
  const name = f.name;
  const wire = vc.wireType;

  if (f.mapKey) {
    return (r, wt, end, slots) => {
      wantWire(name, wt, WIRE_LEN);
      const e = subEnd(r, end);
      let key = '';
      let value: unknown = undefined;
      readFields(r, e, (id, ewt) => {
        if (id === 1) {
          wantWire(`${name} key`, ewt, WIRE_LEN);
          key = r.string();
        } else if (id === 2) {
          wantWire(`${name} value`, ewt, wire);
          value = vc.read(r, e);
        } else return false;
        return true;
      });
      const map = (slots[index] ??= {}) as Json;
      setOwn(map, key, value === undefined ? vc.zero() : value);
    };
  }

  if (f.repeated) {
    const packable = PACKABLE.has(f.kind);
    return (r, wt, end, slots) => {
      const list = (slots[index] ??= []) as unknown[];
      if (packable && wt === WIRE_LEN) {
        // Readers accept packed encoding of repeated scalars as well (proto2 rule).
        const e = subEnd(r, end);
        while (r.pos < e) list.push(vc.read(r, e));
        expectEnd(r, e);
        return;
      }
      wantWire(name, wt, wire);
      list.push(vc.read(r, end));
    };
  }

  return (r, wt, end, slots) => {
    wantWire(name, wt, wire);
    slots[index] = vc.read(r, end);
  };
}

function fieldEmitter(f: ProtoField): FieldEmitter {
  const vc = valueCodecOf(f);
  const name = f.name;

  if (f.inline) {
    return (out, slot) => {
      Object.assign(out, (slot as Json | undefined) ?? vc.zero());
    };
  }
  if (f.mapKey || f.repeated) {
    const empty = f.mapKey ? () => ({}) : () => [];
    if (f.emitEmpty) return (out, slot) => void (out[name] = slot ?? empty());
    return (out, slot) => {
      if (slot !== undefined) out[name] = slot;
    };
  }
  if (f.pointer) {
    if (f.emitEmpty) return (out, slot) => void (out[name] = slot !== undefined ? slot : vc.zero());
    return (out, slot) => {
      if (slot !== undefined) out[name] = slot;
    };
  }
  if (f.kind === 'message' || f.kind in SPECIAL_CODECS) {
    // Go cannot omit a struct: a non-pointer struct field always shows (zero Time as null).
    return (out, slot) => void (out[name] = slot !== undefined ? slot : vc.zero());
  }
  const zero = vc.zero();
  if (f.emitEmpty) return (out, slot) => void (out[name] = slot !== undefined ? slot : zero);
  return (out, slot) => {
    if (slot !== undefined && slot !== zero) out[name] = slot;
  };
}

// ---------------------------------------------------------------------------------------------
// the envelope

const kindCodecs = new Map<string, MessageCodec | null>();

function codecForKind(apiVersion: string, kind: string): MessageCodec | undefined {
  const key = `${apiVersion}\u0000${kind}`;
  let codec = kindCodecs.get(key);
  if (codec === undefined) {
    const name = messageNameForKind(apiVersion, kind);
    codec = name ? messageCodec(name) : null;
    kindCodecs.set(key, codec);
  }
  return codec ?? undefined;
}

function startsWithMagic(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x6b && b[1] === 0x38 && b[2] === 0x73 && b[3] === 0x00;
}

/**
 * The protobuf body of an object in its JSON form (with apiVersion and kind): the 4 magic bytes, then
 * runtime.Unknown{typeMeta{apiVersion, kind}, raw = the object's message, contentEncoding "", contentType ""}.
 */
export function encodeObject(obj: object): Buffer {
  if (!isPlainObject(obj)) throw new ProtobufEncodeError('expected an object');
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new ProtobufEncodeError('the object needs apiVersion and kind to be written as protobuf');
  }
  const codec = codecForKind(apiVersion, kind);
  if (!codec) throw new ProtobufEncodeError(`${apiVersion}, Kind=${kind} has no protobuf form`);
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).fork();
  codec.encode(w, obj);
  w.ldelim();
  w.uint32(0x1a).uint32(0).uint32(0x22).uint32(0);
  const body = w.finish();
  const out = Buffer.allocUnsafe(4 + body.length);
  out.set(PROTOBUF_MAGIC, 0);
  out.set(body, 4);
  return out;
}

function decodeEnvelope(buf: Buffer): object {
  const r = protobuf.Reader.create(buf);
  r.pos = 4;
  const end = buf.length;
  let apiVersion = '';
  let kind = '';
  let rawStart = -1;
  let rawEnd = -1;
  let contentEncoding = '';
  let contentType = '';
  readFields(r, end, (id, wt) => {
    switch (id) {
      case 1: {
        wantWire('typeMeta', wt, WIRE_LEN);
        const e = subEnd(r, end);
        readFields(r, e, (tid, twt) => {
          if (tid === 1) {
            wantWire('apiVersion', twt, WIRE_LEN);
            apiVersion = r.string();
          } else if (tid === 2) {
            wantWire('kind', twt, WIRE_LEN);
            kind = r.string();
          } else return false;
          return true;
        });
        return true;
      }
      case 2: {
        wantWire('raw', wt, WIRE_LEN);
        rawEnd = subEnd(r, end);
        rawStart = r.pos;
        r.pos = rawEnd;
        return true;
      }
      case 3:
        wantWire('contentEncoding', wt, WIRE_LEN);
        contentEncoding = r.string();
        return true;
      case 4:
        wantWire('contentType', wt, WIRE_LEN);
        contentType = r.string();
        return true;
      default:
        return false;
    }
  });
  if (contentEncoding !== '') throw new ProtobufDecodeError(`unsupported content encoding ${JSON.stringify(contentEncoding)}`);
  if (contentType !== '' && contentType !== PROTOBUF_MEDIA_TYPE) {
    throw new ProtobufDecodeError(`unsupported embedded content type ${JSON.stringify(contentType)}`);
  }
  if (kind === '') throw new ProtobufDecodeError('the envelope names no kind');
  const codec = codecForKind(apiVersion, kind);
  if (!codec) throw new ProtobufDecodeError(`no protobuf type is known for ${apiVersion}, Kind=${kind}`);
  const fields = rawStart < 0 ? codec.zero() : ((r.pos = rawStart), codec.decode(r, rawEnd));
  const out: Json = { kind, apiVersion };
  for (const k of Object.keys(fields)) if (k !== 'kind' && k !== 'apiVersion') out[k] = fields[k];
  return out;
}

/**
 * The JSON form of a protobuf body: the object's fields plus kind and apiVersion from the envelope.
 * Throws ProtobufDecodeError, and nothing else, for anything that is not a valid body of a known kind.
 */
export function decodeObject(buf: Uint8Array): object {
  if (!(buf instanceof Uint8Array)) throw new ProtobufDecodeError('expected bytes');
  if (!startsWithMagic(buf)) {
    throw new ProtobufDecodeError('the body does not start with the protobuf prefix 6b 38 73 00 ("k8s\\0")');
  }
  try {
    return decodeEnvelope(toBuffer(buf));
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    // protobufjs signals truncation and bad varints with RangeError/Error; deep nesting can overflow the stack.
    throw new ProtobufDecodeError(`malformed protobuf: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// watch streams

export interface ProtobufWatchEvent {
  type: string;
  object: object;
}

/** The body of one watch frame: WatchEvent{type, object: RawExtension{raw = an encoded object}}, no prefix or envelope. */
export function encodeWatchEventBody(type: string, encodedObject: Uint8Array): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).string(type);
  w.uint32(0x12).fork().uint32(0x0a).bytes(encodedObject).ldelim();
  return w.finish() as Buffer;
}

/**
 * A length-delimited watch frame (4-byte big-endian length + WatchEvent) for an object already
 * encoded with encodeObject, so a watch hub can encode each object once and frame it per event.
 */
export function watchFrame(type: string, encodedObject: Uint8Array): Buffer {
  const body = encodeWatchEventBody(type, encodedObject);
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.set(body, 4);
  return frame;
}

/** A length-delimited watch frame for an object in its JSON form. */
export function encodeWatchEvent(type: string, obj: object): Buffer {
  if (typeof type !== 'string') throw new ProtobufEncodeError('the watch event type must be a string');
  return watchFrame(type, encodeObject(obj));
}

/** The event in the body of one watch frame (without its length prefix). */
export function decodeWatchEvent(body: Uint8Array): ProtobufWatchEvent {
  if (!(body instanceof Uint8Array)) throw new ProtobufDecodeError('expected bytes');
  const buf = toBuffer(body);
  let type: string | undefined;
  let raw: Uint8Array | undefined;
  try {
    const r = protobuf.Reader.create(buf);
    readFields(r, buf.length, (id, wt) => {
      if (id === 1) {
        wantWire('type', wt, WIRE_LEN);
        type = r.string();
      } else if (id === 2) {
        wantWire('object', wt, WIRE_LEN);
        const e = subEnd(r, buf.length);
        readFields(r, e, (oid, owt) => {
          if (oid !== 1) return false;
          wantWire('raw', owt, WIRE_LEN);
          raw = r.bytes();
          return true;
        });
      } else return false;
      return true;
    });
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError(`malformed watch event: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (type === undefined || type === '') throw new ProtobufDecodeError('the watch event has no type');
  if (raw === undefined) throw new ProtobufDecodeError('the watch event has no object');
  return { type, object: decodeObject(raw) };
}

/** Splits a protobuf watch stream into events; feed it the chunks of the response body as they come. */
export class WatchFrameDecoder {
  private readonly frames: FrameSplitter;

  /** @param maxFrameBytes a frame announcing more than this is refused (protects the reader's memory). */
  constructor(maxFrameBytes = 64 * 1024 * 1024) {
    this.frames = new FrameSplitter(maxFrameBytes);
  }

  /** Bytes received that do not yet make a whole frame. */
  get bufferedBytes(): number {
    return this.frames.bufferedBytes;
  }

  push(chunk: Uint8Array): ProtobufWatchEvent[] {
    return this.frames.push(chunk).map((body) => decodeWatchEvent(body));
  }
}
