// The codec's errors: bytes or text that cannot be decoded, objects that cannot be encoded. The server answers
// both with a 400 Status.

/** Bytes that are not a valid protobuf body of a known kind. The message says what is wrong. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError';
}

/** An object that cannot be written as protobuf (unknown kind, or a field of the wrong JSON type). */
export class ProtobufEncodeError extends Error {
  override name = 'ProtobufEncodeError';
  /** Field path (outermost first) at which the problem was found. */
  readonly path: string[] = [];
  constructor(readonly detail: string) {
    super(detail);
  }
  /** Prefixes a path segment and refreshes the message. */
  within(segment: string): this {
    this.path.unshift(segment);
    this.message = `${this.path.join('.').replace(/\.\[/g, '[')}: ${this.detail}`;
    return this;
  }
}
