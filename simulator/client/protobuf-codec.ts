// The protobuf side of the API client. The object codec itself belongs to simulator/codec/protobuf.ts (another
// module, loaded at run time so the daemon still works, in JSON, where it is missing). The watch framing is
// small and fixed by the wire format (wire-facts 1.3), so it lives here: each frame is a 4-byte big-endian
// length and a bare metav1.WatchEvent { type = 1 (string), object = 2 (RawExtension { raw = 1 }) } whose raw
// bytes are a full enveloped object.

// The minimal build (reader, writer: a few modules); the .proto parser of the full library is loaded only by
// codec/protobuf-schema.ts when a type's schema is first needed.
import protobuf from 'protobufjs/minimal.js';
import type { KubeObject, WatchEvent, WatchEventType } from '../api/meta.ts';

export interface ProtobufObjectCodec {
  encodeObject(obj: object): Buffer | Uint8Array;
  decodeObject(buf: Uint8Array): object;
  hasProtobuf(apiVersion: string, kind: string): boolean;
}

let loaded: Promise<ProtobufObjectCodec | undefined> | undefined;

/** The shared codec when simulator/codec/protobuf.ts exists and has the expected shape, else undefined. */
export function loadProtobufCodec(): Promise<ProtobufObjectCodec | undefined> {
  loaded ??= (async () => {
    try {
      // A literal specifier, so that a bundler (the daemon suites compile the daemon into one file) follows it.
      const mod = (await import('../codec/protobuf.ts')) as Partial<ProtobufObjectCodec>;
      if (typeof mod.encodeObject === 'function' && typeof mod.decodeObject === 'function' && typeof mod.hasProtobuf === 'function') {
        return { encodeObject: mod.encodeObject, decodeObject: mod.decodeObject, hasProtobuf: mod.hasProtobuf };
      }
      return undefined;
    } catch {
      return undefined;
    }
  })();
  return loaded;
}

export class ProtobufFrameError extends Error {}

/** The codec's frame splitter, under the name this client has used. */
export { FrameSplitter as LengthDelimitedSplitter } from '../codec/frames.ts';

/** Reads a bare metav1.WatchEvent message into its type and the raw bytes of its object. */
export function readWatchEventFrame(frame: Uint8Array): { type: string; raw: Uint8Array } {
  try {
    const r = protobuf.Reader.create(frame);
    let type = '';
    let raw: Uint8Array = new Uint8Array(0);
    while (r.pos < r.len) {
      const tag = r.uint32();
      const field = tag >>> 3;
      if (field === 1 && (tag & 7) === 2) type = r.string();
      else if (field === 2 && (tag & 7) === 2) {
        const ext = protobuf.Reader.create(r.bytes());
        while (ext.pos < ext.len) {
          const t = ext.uint32();
          if (t >>> 3 === 1 && (t & 7) === 2) raw = ext.bytes();
          else ext.skipType(t & 7);
        }
      } else r.skipType(tag & 7);
    }
    return { type, raw };
  } catch (err) {
    throw new ProtobufFrameError(`malformed protobuf watch frame: ${(err as Error).message}`);
  }
}

/** Writes a frame the way the server does (used by tests and fakes). */
export function writeWatchEventFrame(type: string, raw: Uint8Array): Buffer {
  const ext = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(raw).finish();
  const body = protobuf.Writer.create().uint32((1 << 3) | 2).string(type).uint32((2 << 3) | 2).bytes(ext).finish();
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

export function decodeWatchFrame(frame: Uint8Array, codec: ProtobufObjectCodec): WatchEvent {
  const { type, raw } = readWatchEventFrame(frame);
  return { type: type as WatchEventType, object: codec.decodeObject(raw) as KubeObject };
}
