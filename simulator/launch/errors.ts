// The exceptions startSimulator throws, one class per kind of failure, so that a caller (a test suite, the CLI)
// can tell a mistake in its options from a start that failed and from a manifest the server refused.

/** Every error startSimulator and the test helpers throw on purpose. */
export class SimulatorError extends Error {
  override name = 'SimulatorError';
}

/** An option with a bad value or a bad combination of options: nothing was started. `option` is the CLI flag. */
export class SimulatorOptionError extends SimulatorError {
  override name = 'SimulatorOptionError';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}

/** The simulator could not start (port taken, etcd unreachable, unreadable snapshot); everything begun was stopped. */
export class SimulatorStartError extends SimulatorError {
  override name = 'SimulatorStartError';
}

/** A manifest of --load could not be read or was refused by the API server (the Status message is in `message`). */
export class ManifestLoadError extends SimulatorStartError {
  override name = 'ManifestLoadError';
  constructor(
    readonly file: string,
    /** 0-based index of the document in the file (after `List` items are spread), or -1 for the file itself. */
    readonly document: number,
    message: string,
    /** The HTTP status code the API server answered with, when it refused the object. */
    readonly status?: number,
  ) {
    super(message);
  }
}
