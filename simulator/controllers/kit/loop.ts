// The start of a workload loop's run(), the same in each: an event recorder under the loop's component name, a
// work queue, the informers it watches (the shared pod informer with its shared index), waiting until they are
// all synced, then the workers. A loop declares what it watches and how it reacts; this does the rest.

import type { Informer } from '../../client/informer.ts';
import { EventRecorder } from '../../client/event-recorder.ts';
import { WorkQueue, runWorkers } from '../../client/work-queue.ts';
import type { ControllerContext } from './controller.ts';
import { PodIndex } from './pod-index.ts';

export class LoopKit {
  readonly events: EventRecorder;
  readonly queue: WorkQueue<string>;
  private readonly watched: Informer[] = [];

  constructor(
    private readonly ctx: ControllerContext,
    /** The controller's name (work queue, metrics and log lines). */
    readonly name: string,
    /** The events' source component, e.g. "daemonset-controller". */
    component: string,
  ) {
    this.events = new EventRecorder(ctx.client, { component }, { log: ctx.log, signal: ctx.signal });
    this.queue = new WorkQueue<string>({ name, metrics: ctx.metrics });
  }

  /** The shared informer of a cluster-wide collection path; the workers start once it is synced. */
  informer(path: string): Informer {
    const informer = this.ctx.informers.informerFor(path);
    this.watched.push(informer);
    return informer;
  }

  /** The shared pod informer and the pod index shared with the other loops. */
  pods(podsPath: string): { informer: Informer; index: PodIndex } {
    const informer = this.informer(podsPath);
    return { informer, index: PodIndex.of(informer) };
  }

  /** Whether every watched informer synced, in the order they were asked for (false: the loop was stopped). */
  async synced(): Promise<boolean> {
    for (const informer of this.watched) if (!(await informer.waitForSync(this.ctx.signal))) return false;
    return true;
  }

  /** Runs `workers` workers on the queue until the loop is stopped. */
  work(workers: number, sync: (key: string) => Promise<void>): Promise<void> {
    return runWorkers(this.queue, workers, sync, this.ctx.signal, { controller: this.name, metrics: this.ctx.metrics, log: this.ctx.log });
  }
}
