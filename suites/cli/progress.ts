// Progress while checks run: one rewritten line on a terminal, one plain line per finished check otherwise.
import type { CheckOutcome } from '../harness/engine.ts';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export class Progress {
  private total = 0;
  private counts = { passed: 0, failed: 0, skipped: 0 };
  private current = '';
  private lastDraw = 0;

  constructor(private readonly out: ProgressStream) {}

  plan(total: number): void {
    this.total = total;
    this.draw(true);
  }

  start(id: string): void {
    this.current = id;
    this.draw(false);
  }

  done(outcome: CheckOutcome): void {
    this.counts[outcome.status]++;
    if (this.out.isTTY) {
      if (outcome.status === 'failed') {
        this.clearLine();
        this.out.write(`✗ ${outcome.id}: ${(outcome.message ?? '').split('\n')[0]}\n`);
      }
      this.draw(true);
      return;
    }
    const detail = outcome.status === 'failed' ? `: ${(outcome.message ?? '').split('\n')[0]}` : outcome.status === 'skipped' ? ` (${outcome.reason})` : '';
    const word = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[outcome.status];
    this.out.write(`${word} ${outcome.id}${detail} (${(outcome.durationMs / 1000).toFixed(1)} s)\n`);
  }

  /** A line about the run itself (not a check), e.g. a wait between phases. */
  note(text: string): void {
    if (this.out.isTTY) this.clearLine();
    this.out.write(`${text}\n`);
    this.draw(true);
  }

  finish(): void {
    if (this.out.isTTY) this.clearLine();
  }

  private clearLine(): void {
    this.out.write('\r\u001b[K');
  }

  private draw(force: boolean): void {
    if (!this.out.isTTY) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 50) return;
    this.lastDraw = now;
    const finished = this.counts.passed + this.counts.failed + this.counts.skipped;
    const line = `[${finished}/${this.total}] ✓ ${this.counts.passed}  ✗ ${this.counts.failed}  ↷ ${this.counts.skipped}  ${this.current}`;
    const width = (this.out.columns || 100) - 1;
    this.clearLine();
    this.out.write(line.length > width ? line.slice(0, width) : line);
  }
}
