// A Job's spec and status as the Job controller writes them and the CronJob controller reads them (whether a
// job it started has finished).

import type { JobStatus } from '../../api/types/index.ts';
import type { KubeObject } from '../../api/meta.ts';
import type { LabelSelector } from '../../api/labels.ts';
import type { Obj } from './workload-util.ts';

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  selector?: LabelSelector;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Obj };
}

export type { JobStatus };

export const jobStatus = (job: KubeObject) => (job.status ?? {}) as JobStatus;

/** Finished: a Complete or Failed condition is True. */
export function jobFinished(job: KubeObject): 'Complete' | 'Failed' | undefined {
  const c = (jobStatus(job).conditions ?? []).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c?.type as 'Complete' | 'Failed' | undefined;
}
