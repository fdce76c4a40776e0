// Progress while checks run: one rewritten line on a terminal, one plain line per finished check otherwise, and
// then a heartbeat line whenever 10 s pass without one (which checks are still running, and for how long), so a
// log never looks stuck while checks wait for pods, schedules or history windows.
import type { CheckOutcome } from '../harness/engine.ts';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Seconds without a line after which a heartbeat line is written. */
export const HEARTBEAT_MS = 10_000;

export class Progress {
  private total = 0;
  private readonly running = new Map<string, number>();
  private lastLine = Date.now();
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private counts = { passed: 0, failed: 0, skipped: 0 };
  private current = '';
  private lastDraw = 0;

  constructor(
    private readonly out: ProgressStream,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  plan(total: number): void {
    this.total = total;
    this.draw(true);
    if (!this.out.isTTY && !this.heartbeat) {
      this.heartbeat = setInterval(() => this.beat(), Math.min(1000, this.heartbeatMs));
      this.heartbeat.unref();
    }
  }

  start(id: string): void {
    this.current = id;
    this.running.set(id, Date.now());
    this.draw(false);
  }

  done(outcome: CheckOutcome): void {
    this.running.delete(outcome.id);
    this.lastLine = Date.now();
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
    this.lastLine = Date.now();
    if (this.out.isTTY) this.clearLine();
    this.out.write(`${text}\n`);
    this.draw(true);
  }

  finish(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (this.out.isTTY) this.clearLine();
  }

  /** The heartbeat: after `heartbeatMs` without a line, what is still running (the longest first, at most 4). */
  private beat(): void {
    const now = Date.now();
    if (now - this.lastLine < this.heartbeatMs) return;
    this.lastLine = now;
    const finished = this.counts.passed + this.counts.failed + this.counts.skipped;
    const longest = [...this.running].sort((a, b) => a[1] - b[1]);
    const list = longest.slice(0, 4).map(([id, t]) => `${id} (${Math.round((now - t) / 1000)} s)`);
    const more = longest.length > 4 ? ` and ${longest.length - 4} more` : '';
    this.out.write(`... ${finished}/${this.total} done; running: ${list.join(', ') || 'no check reported its start yet (the runner reports a file once the files before it are done)'}${more}\n`);
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
