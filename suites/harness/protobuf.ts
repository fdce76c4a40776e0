// The harness speaks protobuf through the project's own codec (simulator/codec/protobuf.ts), never a
// second implementation. It is loaded on first use so the rest of the harness works without it.
import type { KubeObject } from '../../simulator/api/meta.ts';

export interface ProtobufCodec {
  encodeObject(obj: KubeObject): Uint8Array;
  decodeObject(buf: Uint8Array): KubeObject;
  hasProtobuf(apiVersion: string, kind: string): boolean;
  /** Decodes one watch frame body (a metav1.WatchEvent without the envelope) into {type, object}. */
  decodeWatchEventBody?(buf: Uint8Array): { type: string; object: KubeObject };
}

export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

let loading: Promise<ProtobufCodec> | undefined;

export function loadProtobufCodec(): Promise<ProtobufCodec> {
  // A computed specifier keeps the typecheck independent of when the codec lands.
  const specifier = new URL('../../simulator/codec/protobuf.ts', import.meta.url).href;
  loading ??= import(specifier).then(
    (mod) => mod as ProtobufCodec,
    (err: Error) => {
      loading = undefined;
      throw new Error(`the project's protobuf codec is not available: ${err.message.split('\n')[0]}`);
    },
  );
  return loading;
}

export function startsWithMagic(buf: Uint8Array): boolean {
  return buf.length >= 4 && PROTOBUF_MAGIC.every((b, i) => buf[i] === b);
}

/** Splits a protobuf watch stream into frame bodies: 4-byte big-endian length, then that many bytes. */
export class LengthFrameSplitter {
  private pending = Buffer.alloc(0);
  push(chunk: Uint8Array): Buffer[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0);
      if (this.pending.length < 4 + length) break;
      frames.push(this.pending.subarray(4, 4 + length));
      this.pending = this.pending.subarray(4 + length);
    }
    return frames;
  }
  get hasPartial(): boolean {
    return this.pending.length > 0;
  }
}
