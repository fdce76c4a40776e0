// The harness speaks protobuf through the project's own codec (simulator/codec/protobuf.ts), never a
// second implementation; this module only narrows it to what the client needs.
import type { KubeObject } from '../../simulator/api/meta.ts';
import * as codec from '../../simulator/codec/protobuf.ts';

export const PROTOBUF_MAGIC = codec.PROTOBUF_MAGIC;

export function encodeProtobuf(obj: KubeObject): Uint8Array {
  return codec.encodeObject(obj);
}

export function decodeProtobuf(buf: Uint8Array): KubeObject {
  return codec.decodeObject(buf) as KubeObject;
}

export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return codec.hasProtobuf(apiVersion, kind);
}

/** Splits a protobuf watch stream (4-byte length frames) into decoded events. */
export function watchFrameDecoder(): { push(chunk: Uint8Array): Array<{ type: string; object: object }> } {
  return new codec.WatchFrameDecoder();
}

export function startsWithMagic(buf: Uint8Array): boolean {
  return buf.length >= 4 && PROTOBUF_MAGIC.every((b, i) => buf[i] === b);
}
