// One etcd watch on its own gRPC stream, resumed after connection loss.
//
// Why not the etcd3 package's Watcher: it hides the compact_revision of a cancelled watch (the store needs it for
// `Compacted` errors and 410 messages) and resumes from header.revision + 1, which can skip events when etcd sends
// a catch-up batch whose header is ahead of its last event. Here the resume point is the last delivered event's
// revision + 1 (or a progress notification's header), so a reconnect never loses or repeats an event.
// A stream per watch is cheap: gRPC multiplexes the streams over the client's one HTTP/2 connection per host.

import type { IDuplexStream, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';

export interface EtcdWatchOptions {
  client: WatchClient;
  key: Buffer;
  rangeEnd: Buffer;
  /** The first revision to deliver (etcd's start_revision). */
  startRevision: number;
  /** A response carrying events, in revision order; throwing ends the watch through onFailed. */
  onEvents(res: IWatchResponse): void;
  /** Every response's header revision (the cluster's revision when etcd sent it). */
  onHeader(revision: number): void;
  /** etcd cancelled the watch because `startRevision` (or the resume point) was compacted. */
  onCompacted(compactRevision: number): void;
  /** etcd cancelled the watch for another reason, or onEvents threw. */
  onFailed(err: Error): void;
}

const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 2000;

export class EtcdWatch {
  private stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  private next: number;
  private stopped = false;
  private backoffMs = MIN_BACKOFF_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: EtcdWatchOptions) {
    this.next = opts.startRevision;
    this.open();
  }

  /** The next revision this watch would deliver. */
  get nextRevision(): number {
    return this.next;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
  }

  private open(): void {
    if (this.stopped) return;
    this.opts.client.watch().then(
      (stream) => {
        if (this.stopped) {
          stream.on('error', () => undefined);
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on('data', (res) => this.onResponse(stream, res));
        stream.on('error', () => this.reopen(stream));
        stream.on('end', () => this.reopen(stream));
        stream.write({
          create_request: {
            key: this.opts.key,
            range_end: this.opts.rangeEnd,
            start_revision: this.next,
            prev_kv: true,
            progress_notify: true,
          },
        });
      },
      () => this.reopen(undefined),
    );
  }

  /** Connection lost (etcd restarted, leader change, network): open a new stream from where we are. */
  private reopen(stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined): void {
    if (this.stopped || stream !== this.stream) return; // a stale stream's late error, or we stopped it
    this.stream = undefined;
    stream?.cancel();
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  private onResponse(stream: IDuplexStream<IWatchRequest, IWatchResponse>, res: IWatchResponse): void {
    if (this.stopped || stream !== this.stream) return;
    this.backoffMs = MIN_BACKOFF_MS;
    this.opts.onHeader(Number(res.header.revision));
    const compact = Number(res.compact_revision);
    if (compact > 0) {
      this.end();
      this.opts.onCompacted(compact);
      return;
    }
    if (res.canceled) {
      this.end();
      this.opts.onFailed(new Error(`etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.events.length > 0) {
      this.next = Number(res.events[res.events.length - 1].kv.mod_revision) + 1;
      try {
        this.opts.onEvents(res);
      } catch (err) {
        this.end();
        this.opts.onFailed(err as Error);
      }
    } else if (!res.created) {
      // A progress notification: nothing under the range changed up to the header's revision.
      this.next = Math.max(this.next, Number(res.header.revision) + 1);
    }
  }

  private end(): void {
    this.stopped = true;
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
  }
}
