// Leader election as the 1.9 daemon does it (client-go tools/leaderelection, wire-facts 7): the lock is an
// Endpoints or ConfigMap object (kube-system/kube-controller-manager) whose annotation
// control-plane.alpha.kubernetes.io/leader holds the JSON record. A candidate tries every retry period
// (with jitter); the leader renews every retry period and gives up when it could not renew within the renew
// deadline; others take over once they have seen the same record for a whole lease duration (measured by
// their own clock, not by the renewTime written in the record). Updates use the object's resourceVersion,
// so two candidates cannot both win the same round. Like 1.9, a stopping leader does not release the lock.

import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID, randomBytes } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { ApiError, resourcePath, type ApiClient } from './api-client.ts';
import type { DaemonMetrics } from './metrics.ts';
import { sleep } from './timers.ts';

export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
export const DEFAULT_LOCK_NAMESPACE = 'kube-system';
export const DEFAULT_LOCK_NAME = 'kube-controller-manager';
/** client-go's JitterFactor for the acquire loop. */
const JITTER_FACTOR = 1.2;

export type LockType = 'endpoints' | 'configmaps';

export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaderTransitions: number;
}

/** The record in Go json.Marshal key order. */
export function serializeRecord(r: LeaderElectionRecord): string {
  return JSON.stringify({
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: r.acquireTime,
    renewTime: r.renewTime,
    leaderTransitions: r.leaderTransitions,
  });
}

/** Reads an annotation value; a missing or broken one is an empty record, as client-go treats it. */
export function parseRecord(text: string | undefined): LeaderElectionRecord {
  const empty: LeaderElectionRecord = { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: '', renewTime: '', leaderTransitions: 0 };
  if (!text) return empty;
  try {
    const v = JSON.parse(text) as Partial<LeaderElectionRecord>;
    return {
      holderIdentity: typeof v.holderIdentity === 'string' ? v.holderIdentity : '',
      leaseDurationSeconds: typeof v.leaseDurationSeconds === 'number' ? v.leaseDurationSeconds : 0,
      acquireTime: typeof v.acquireTime === 'string' ? v.acquireTime : '',
      renewTime: typeof v.renewTime === 'string' ? v.renewTime : '',
      leaderTransitions: typeof v.leaderTransitions === 'number' ? v.leaderTransitions : 0,
    };
  } catch {
    return empty;
  }
}

/** RFC 3339 with whole seconds in UTC, as metav1.Time marshals. */
export function rfc3339Seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The default identity: the 1.9 daemon used the bare hostname; a suffix keeps two daemons on one host apart. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** An Endpoints or ConfigMap object used only for its annotation. */
export class AnnotationLock {
  private current: KubeObject | undefined;

  constructor(
    private readonly client: ApiClient,
    readonly type: LockType,
    readonly namespace: string,
    readonly name: string,
    private readonly timeoutMs: number,
  ) {}

  private path(withName: boolean): string {
    return resourcePath({ group: '', version: 'v1', resource: this.type, namespace: this.namespace, name: withName ? this.name : undefined });
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** The record, or undefined when the object does not exist. Other failures throw. */
  async get(signal: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string } | undefined> {
    try {
      this.current = await this.client.get(this.path(true), undefined, signal);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
    const raw = this.current.metadata.annotations?.[LEADER_ANNOTATION] ?? '';
    return { record: parseRecord(raw), raw };
  }

  async create(record: LeaderElectionRecord, signal: AbortSignal): Promise<void> {
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: this.type === 'endpoints' ? 'Endpoints' : 'ConfigMap',
      metadata: { name: this.name, namespace: this.namespace, annotations: { [LEADER_ANNOTATION]: serializeRecord(record) } },
    };
    this.current = (await this.client.request<KubeObject>('POST', this.path(false), { body: obj, signal, retries: 0, timeoutMs: this.timeoutMs })).body;
  }

  /** PUT of the object last read, so a concurrent change makes this fail with 409. */
  async update(record: LeaderElectionRecord, signal: AbortSignal): Promise<void> {
    if (!this.current) throw new Error('lock not read before update');
    const obj: KubeObject = {
      ...this.current,
      apiVersion: 'v1',
      kind: this.type === 'endpoints' ? 'Endpoints' : 'ConfigMap',
      metadata: { ...this.current.metadata, annotations: { ...this.current.metadata.annotations, [LEADER_ANNOTATION]: serializeRecord(record) } },
    };
    this.current = (await this.client.request<KubeObject>('PUT', this.path(true), { body: obj, signal, retries: 0, timeoutMs: this.timeoutMs })).body;
  }

  get object(): KubeObject | undefined {
    return this.current;
  }
}

export interface LeaderElectionConfig {
  client: ApiClient;
  lockType: LockType;
  namespace?: string;
  name?: string;
  identity?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  metrics?: DaemonMetrics;
  log?: (line: string) => void;
  /** Posts a LeaderElection Event on the lock object when leadership is gained (default true). */
  recordEvents?: boolean;
}

export interface LeaderCallbacks {
  /** Runs while leading; the signal aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
}

/** Sleeps; false when the signal ended the wait. */
async function sleepUnlessStopped(ms: number, signal: AbortSignal): Promise<boolean> {
  await sleep(ms, signal);
  return !signal.aborted;
}

export class LeaderElector {
  readonly identity: string;
  readonly lock: AnnotationLock;
  private observedRaw: string | undefined;
  private observedRecord: LeaderElectionRecord | undefined;
  private observedAt = 0;
  private leading = false;
  private reportedLeader: string | undefined;

  constructor(private readonly cfg: LeaderElectionConfig) {
    // The spec allows a renew deadline equal to the lease duration ("at most"); client-go wanted it strictly lower.
    if (cfg.leaseDurationMs < cfg.renewDeadlineMs) throw new Error('leaseDuration must not be less than renewDeadline');
    if (!(cfg.renewDeadlineMs > cfg.retryPeriodMs)) throw new Error('renewDeadline must be greater than retryPeriod');
    if (!(cfg.retryPeriodMs > 0)) throw new Error('retryPeriod must be greater than zero');
    this.identity = cfg.identity ?? defaultIdentity();
    this.lock = new AnnotationLock(cfg.client, cfg.lockType, cfg.namespace ?? DEFAULT_LOCK_NAMESPACE, cfg.name ?? DEFAULT_LOCK_NAME, cfg.renewDeadlineMs);
    cfg.metrics?.leaderStatus.set({ name: this.lock.name }, 0);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The last record this elector saw or wrote. */
  get record(): LeaderElectionRecord | undefined {
    return this.observedRecord ? { ...this.observedRecord } : undefined;
  }

  private log(line: string): void {
    this.cfg.log?.(line);
  }

  // A renewal is recognised by the annotation or the object's resourceVersion changing. client-go compares the
  // records only; their times have whole-second precision, so with sub-second leases (tests, fast simulations)
  // two renewals in one second would look identical and a live leader would seem to have stopped.
  private observe(record: LeaderElectionRecord, raw: string): void {
    const key = `${raw}|${this.lock.object?.metadata.resourceVersion ?? ''}`;
    if (key !== this.observedRaw) {
      this.observedRaw = key;
      this.observedRecord = record;
      this.observedAt = performance.now();
    }
  }

  private reportTransition(cb: LeaderCallbacks): void {
    const holder = this.observedRecord?.holderIdentity;
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder !== this.identity) this.log(`leader election: ${holder} is the leader of ${this.lock.describe()}`);
      cb.onNewLeader?.(holder);
    }
  }

  /** One round of client-go's tryAcquireOrRenew. True when this elector holds the lock afterwards. */
  async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const nowMs = Date.now();
    const fresh: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.floor(this.cfg.leaseDurationMs / 1000),
      acquireTime: rfc3339Seconds(nowMs),
      renewTime: rfc3339Seconds(nowMs),
      leaderTransitions: 0,
    };
    try {
      const old = await this.lock.get(signal);
      if (!old) {
        await this.lock.create(fresh, signal);
        this.observe(fresh, serializeRecord(fresh));
        return true;
      }
      this.observe(old.record, old.raw);
      const holder = old.record.holderIdentity;
      if (holder !== this.identity && holder !== '' && this.observedAt + this.cfg.leaseDurationMs > performance.now()) return false;
      if (holder === this.identity) {
        fresh.acquireTime = old.record.acquireTime || fresh.acquireTime;
        fresh.leaderTransitions = old.record.leaderTransitions;
      } else {
        fresh.leaderTransitions = old.record.leaderTransitions + 1;
      }
      await this.lock.update(fresh, signal);
      this.observe(fresh, serializeRecord(fresh));
      return true;
    } catch (err) {
      if (!signal.aborted) this.log(`leader election: error with lock ${this.lock.describe()}: ${(err as Error).message}`);
      return false;
    }
  }

  /**
   * Campaigns until leading, leads until the lease cannot be renewed or the signal aborts.
   * Resolves 'lost' when leadership was lost, 'stopped' when the signal ended it.
   */
  async run(signal: AbortSignal, cb: LeaderCallbacks): Promise<'lost' | 'stopped'> {
    this.log(`leader election: ${this.identity} attempting to acquire ${this.cfg.lockType} lock ${this.lock.describe()}`);
    for (;;) {
      if (signal.aborted) return 'stopped';
      const won = await this.tryAcquireOrRenew(signal);
      this.reportTransition(cb);
      if (won) break;
      const wait = this.cfg.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
      if (!(await sleepUnlessStopped(wait, signal))) return 'stopped';
    }
    this.leading = true;
    this.cfg.metrics?.leaderStatus.set({ name: this.lock.name }, 1);
    this.log(`leader election: ${this.identity} became leader (${this.cfg.lockType} ${this.lock.describe()})`);
    void this.recordEvent(`${this.identity} became leader`, signal);
    const leadership = new AbortController();
    // Every informer, watch and worker listens on this one signal; dozens are expected, not a leak.
    setMaxListeners(0, leadership.signal);
    const stopLeading = () => leadership.abort();
    signal.addEventListener('abort', stopLeading, { once: true });
    try {
      cb.onStartedLeading(leadership.signal);
      // Renew: every retry period; give up when no renewal succeeded within the renew deadline.
      for (;;) {
        const pollStart = performance.now();
        let renewed = false;
        while (!renewed) {
          if (!(await sleepUnlessStopped(this.cfg.retryPeriodMs, signal))) return 'stopped';
          if (performance.now() - pollStart >= this.cfg.renewDeadlineMs) break;
          const attempt = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, Math.ceil(pollStart + this.cfg.renewDeadlineMs - performance.now())))]);
          renewed = await this.tryAcquireOrRenew(attempt);
          if (signal.aborted) return 'stopped';
          // Stricter than client-go, which keeps polling: once another holder is on record, stop at once.
          if (!renewed && this.observedRecord && this.observedRecord.holderIdentity !== this.identity && this.observedRecord.holderIdentity !== '') break;
        }
        this.reportTransition(cb);
        if (!renewed) {
          this.log(`leader election: ${this.identity} failed to renew ${this.lock.describe()} within ${this.cfg.renewDeadlineMs} ms; stopped leading`);
          return 'lost';
        }
      }
    } finally {
      signal.removeEventListener('abort', stopLeading);
      this.leading = false;
      this.cfg.metrics?.leaderStatus.set({ name: this.lock.name }, 0);
      leadership.abort();
      cb.onStoppedLeading?.();
    }
  }

  /** Best effort, like the real recorder: an Event on the lock object; failures are only logged. */
  private async recordEvent(message: string, signal: AbortSignal): Promise<void> {
    if (this.cfg.recordEvents === false) return;
    const obj = this.lock.object;
    const now = rfc3339Seconds(Date.now());
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${this.lock.name}.${randomBytes(8).toString('hex')}`, namespace: this.lock.namespace },
      involvedObject: {
        kind: this.cfg.lockType === 'endpoints' ? 'Endpoints' : 'ConfigMap',
        namespace: this.lock.namespace,
        name: this.lock.name,
        uid: obj?.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: obj?.metadata.resourceVersion,
      },
      reason: 'LeaderElection',
      message,
      source: { component: 'controller-manager' },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: 'Normal',
    };
    try {
      await this.cfg.client.request('POST', resourcePath({ group: '', version: 'v1', resource: 'events', namespace: this.lock.namespace }), { body: event, signal, retries: 0 });
    } catch (err) {
      if (!signal.aborted) this.log(`leader election: could not record event: ${(err as Error).message}`);
    }
  }
}
