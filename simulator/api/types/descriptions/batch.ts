// Descriptions of the batch group's types: Jobs (batch/v1) and CronJobs (batch/v1beta1). JobSpec and
// CronJobSpec fields are in the spec's words (spec-tables/fields.yaml), which index.ts takes first.

import { condition, LAST_PROBE_TIME, t, type PackageDescriptions } from './common.ts';

export const BATCH: PackageDescriptions = {
  packages: ['io.k8s.api.batch.v1', 'io.k8s.api.batch.v1beta1'],
  types: {
    Job: t('Runs pods until a number of them finish successfully; failed pods are replaced, up to a retry limit.', {
      spec: 'The pod, how many must succeed, how many run at once, and the limits.',
      status: 'Pod counts and the Complete or Failed condition, as the job controller last saw.',
    }),
    JobSpec: t('The desired run of a job.', {
      ttlSecondsAfterFinished: 'Seconds after the job finished before it is deleted automatically; kept when unset.',
    }),
    JobStatus: t('What the job controller last saw.', {
      conditions: 'Complete or Failed once the job finished.',
      startTime: 'When the controller started working on the job.',
      completionTime: 'When the job completed.',
      active: 'Pods running or pending.',
      succeeded: 'Pods that succeeded.',
      failed: 'Pods that failed.',
    }),
    JobCondition: condition('job', 'Complete, Failed', { lastProbeTime: LAST_PROBE_TIME }),
    CronJob: t('Creates a Job from a template on a repeating schedule written in cron format.', {
      spec: 'The schedule, the job template and how runs may overlap.',
      status: 'The jobs running and the last scheduled time.',
    }),
    CronJobSpec: t('The desired schedule of a cron job.'),
    CronJobStatus: t('What the cron job controller last saw.', {
      active: 'The jobs of this cron job that are running.',
      lastScheduleTime: 'When a job was last created for a scheduled time.',
    }),
    JobTemplateSpec: t('The job a cron job creates at each scheduled time.', {
      metadata: 'Labels and annotations of each job made.',
      spec: 'The spec of each job made.',
    }),
  },
};
