// The one splitter of length-delimited streams (a protobuf watch stream: each frame a 4-byte big-endian length
// and that many bytes). The codec's WatchFrameDecoder and the client's watch reader both cut frames with it.

import { ProtobufDecodeError } from './errors.ts';

const EMPTY = Buffer.alloc(0);

export class FrameSplitter {
  private pending: Buffer = EMPTY;

  /** @param maxFrameBytes a frame announcing more than this is refused (protects the reader's memory). */
  constructor(private readonly maxFrameBytes = 64 * 1024 * 1024) {}

  /** Bytes received that do not yet make a whole frame. */
  get bufferedBytes(): number {
    return this.pending.length;
  }

  get incomplete(): boolean {
    return this.pending.length > 0;
  }

  /** The whole frames (bodies without their length prefix) completed by this chunk. */
  push(chunk: Uint8Array): Buffer[] {
    if (!(chunk instanceof Uint8Array)) throw new ProtobufDecodeError('expected bytes');
    const buf = this.pending.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    let off = 0;
    try {
      while (buf.length - off >= 4) {
        const len = buf.readUInt32BE(off);
        if (len > this.maxFrameBytes) throw new ProtobufDecodeError(`a watch frame of ${len} bytes exceeds the limit of ${this.maxFrameBytes}`);
        if (buf.length - off - 4 < len) break;
        frames.push(buf.subarray(off + 4, off + 4 + len));
        off += 4 + len;
      }
    } finally {
      // Keep a copy of the tail: the caller may reuse the chunk's memory.
      this.pending = off >= buf.length ? EMPTY : Buffer.from(buf.subarray(off));
    }
    return frames;
  }
}
