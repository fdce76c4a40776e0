// Reading a request body (the app's one content-type parser, fastify's lib/contentTypeParser.js in its place):
// bytes into a Buffer up to the body limit; decoding by media type is the handlers' (../serializers.ts).

import { badRequest, requestEntityTooLarge } from '../errors.ts';

/** How much of an over-limit body is read and thrown away so that the client, still sending, can read the 413. */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * Reads a request body into a Buffer. Beyond the body limit the rest is read and discarded (up to
 * DRAIN_LIMIT) before the 413 is answered: a client that writes its whole body before it reads (most do)
 * would otherwise see its connection reset mid-write and never the Status. A body that stops arriving is cut
 * by the server's request timeout (408, see clientErrorHandler).
 */
export function readBody(
  limit: number,
  payload: NodeJS.ReadableStream & { destroy?: (e?: Error) => void },
  done: (err: Error | null, body?: Buffer) => void,
): void {
  new BodyReader(limit, payload, done);
}

// A class rather than closures: under tsx every named closure is wrapped in a naming helper when it is created,
// which every request with a body would pay five times.
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private finished = false;

  constructor(
    private readonly limit: number,
    private readonly payload: NodeJS.ReadableStream,
    private readonly done: (err: Error | null, body?: Buffer) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    payload.on('data', this.onData);
    payload.on('end', this.onEnd);
    payload.on('error', this.onError);
  }

  private finish(err: Error | null, body?: Buffer): void {
    if (this.finished) return;
    this.finished = true;
    this.payload.removeListener('data', this.onData);
    this.payload.removeListener('end', this.onEnd);
    this.payload.removeListener('error', this.onError);
    this.done(err, body);
  }

  private onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= this.limit) this.chunks.push(chunk);
    else if (this.chunks.length > 0) this.chunks.length = 0;
    if (this.size > DRAIN_LIMIT) {
      // Enough: answer now and close the connection (the reply carries Connection: close).
      this.payload.pause();
      this.finish(Object.assign(requestEntityTooLarge(this.limit), { closeConnection: true }));
    }
  }

  private onEnd(): void {
    const { size, limit, chunks } = this;
    if (size > limit) this.finish(requestEntityTooLarge(limit));
    else this.finish(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  }

  private onError(err: Error): void {
    this.finish(badRequest(`the request body could not be read: ${err.message}`));
  }
}
