// The daemon's Prometheus metrics, on a registry of its own so that several daemons (or a daemon and the API
// server) can live in one process without sharing counters. Names follow the real daemon's later naming
// (workqueue_*, rest_client_*, leader_election_master_status) so existing dashboards read them.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class DaemonMetrics {
  readonly registry = new Registry();

  readonly workqueueDepth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of the work queue.', labelNames: ['name'], registers: [this.registry] });
  readonly workqueueAdds = new Counter({ name: 'workqueue_adds_total', help: 'Items handed to the work queue.', labelNames: ['name'], registers: [this.registry] });
  readonly workqueueRetries = new Counter({ name: 'workqueue_retries_total', help: 'Rate-limited re-adds after a failed reconcile.', labelNames: ['name'], registers: [this.registry] });
  readonly workqueueLatency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'Time an item waits in the queue before a worker takes it.',
    labelNames: ['name'],
    buckets: [0.001, 0.01, 0.1, 1, 10, 100],
    registers: [this.registry],
  });

  readonly reconcileTotal = new Counter({
    name: 'controller_reconcile_total',
    help: 'Reconcile calls by controller and result (success or error).',
    labelNames: ['controller', 'result'],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'controller_reconcile_duration_seconds',
    help: 'Time spent in one reconcile call.',
    labelNames: ['controller'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [this.registry],
  });

  readonly apiRequests = new Counter({
    name: 'rest_client_requests_total',
    help: 'HTTP requests to the API server by verb and status code ("<error>" for a failed connection).',
    labelNames: ['verb', 'code'],
    registers: [this.registry],
  });
  readonly apiRequestDuration = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Latency of requests to the API server by verb (until response headers).',
    labelNames: ['verb'],
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly apiRateLimiterWait = new Histogram({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: 'Time a request waited for the client-side token bucket (--x-api-qps, --x-api-burst).',
    buckets: [0.001, 0.01, 0.1, 1, 10],
    registers: [this.registry],
  });

  readonly leaderStatus = new Gauge({
    name: 'leader_election_master_status',
    help: '1 while this daemon holds the leader lock, 0 otherwise.',
    labelNames: ['name'],
    registers: [this.registry],
  });
  readonly controllersRunning = new Gauge({
    name: 'controller_running',
    help: '1 for each controller whose loop is running, 0 for one that is enabled but not started.',
    labelNames: ['controller'],
    registers: [this.registry],
  });

  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
