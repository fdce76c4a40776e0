// fast-check inside a check: seeded per check, bounded runs, and on failure an error that carries what is
// needed to replay it (seed, property index, path) and the shrunk counterexample.
import { WatchNotStreamed } from './client.ts';
import fc from 'fast-check';
import type { ExchangeRecorder } from './recorder.ts';
import { rowsOf, ROWS_PROPERTY } from './expect.ts';

export interface PropertySettings {
  seed: number;
  numRuns: number;
  /** When replaying: the property index and the path of its counterexample. */
  replay?: { property: number; path: string };
}

export class PropertyFailure extends Error {
  override name = 'PropertyFailure';
  constructor(
    message: string,
    readonly seed: number,
    readonly property: number,
    readonly path: string | undefined,
    readonly counterexample: string,
  ) {
    super(message);
  }
}

export class PropertyRunner {
  private index = 0;
  constructor(
    private readonly settings: PropertySettings,
    private readonly recorder: ExchangeRecorder,
  ) {}

  async forAll<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void> | void, options: { numRuns?: number } = {}): Promise<void> {
    const index = this.index++;
    const replay = this.settings.replay?.property === index ? this.settings.replay.path : undefined;
    const recorder = this.recorder;
    const property = fc.asyncProperty(arbitrary, async (value) => {
      recorder.beginRun();
      try {
        await predicate(value);
      } catch (err) {
        recorder.markRunFailed();
        throw err;
      }
    });
    const details = await fc.check(property, {
      seed: this.settings.seed,
      numRuns: Math.min(options.numRuns ?? this.settings.numRuns, this.settings.numRuns),
      ...(replay ? { path: replay, endOnFailure: true } : {}),
    });
    if (!details.failed) return;
    const cause = details.errorInstance;
    // Not a counterexample: an earlier watch of the run showed the target does not stream (client.ts); the check
    // is not verified, whatever the property drew.
    if (cause instanceof WatchNotStreamed) throw cause;
    const counterexample = details.counterexample ? fc.stringify(details.counterexample[0]) : '(none)';
    const reason = cause instanceof Error ? cause.message : String(cause);
    const failure = new PropertyFailure(
      `${reason}\n  counterexample: ${counterexample} (after ${details.numRuns} runs, ${details.numShrinks} shrinks; seed ${details.seed}, path ${details.counterexamplePath})`,
      this.settings.seed,
      index,
      details.counterexamplePath ?? undefined,
      counterexample,
    );
    const rows = rowsOf(cause);
    if (rows) (failure as unknown as Record<string, unknown>)[ROWS_PROPERTY] = rows;
    throw failure;
  }
}
