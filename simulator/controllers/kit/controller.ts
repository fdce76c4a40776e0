// What every control loop of the daemon is given and must provide.

import type { ApiClient } from '../../client/api-client.ts';
import type { DaemonOptions } from '../config/options.ts';
import type { FeatureGates } from '../config/feature-gates.ts';
import type { DaemonMetrics } from '../../client/metrics.ts';
import type { InformerFactory } from '../../client/informer.ts';
import type { SimulatedCloud } from '../cloud/simulated-cloud.ts';

export interface ControllerContext {
  client: ApiClient;
  /** Shared informers: one list+watch per collection path for all controllers. */
  informers: InformerFactory;
  options: DaemonOptions;
  gates: FeatureGates;
  /** Aborts when the daemon stops or loses leadership; run() should then return. */
  signal: AbortSignal;
  metrics: DaemonMetrics;
  /** The cloud provider (--cloud-provider simulated), or undefined without one. */
  cloud?: SimulatedCloud;
  log(line: string): void;
}

export interface Controller {
  /** The name used in --controllers. */
  name: string;
  /** Runs until ctx.signal aborts. A rejection is logged and the controller is marked failed. */
  run(ctx: ControllerContext): Promise<void>;
}
