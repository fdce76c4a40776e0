// Job (batch/v1, spec 2.5) and CronJob (batch/v1beta1, spec 2.3): defaults from the JobSpec and
// CronJobSpec rows, completions/parallelism and labels from the real defaulter (wire-facts 5), the
// generated selector of the real registry (needs the uid: prepareForCreate), schedule parsing.

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../meta.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, notSupported, required } from '../field-errors.ts';
import { scheduleError } from './cron-schedule.ts';
import { validateLabelSelector, validateSelectorImmutable, validateWorkloadSelector } from './selector.ts';
import { isZeroValue, tableDefault, tableEnum, tableMinimum } from './table.ts';
import { defaultLabelsFromTemplate, defaultTemplate, validateTemplate } from './template.ts';
import { type Obj, atLeast, clearStatus, ensureObj, isObj, isUnset, nonNegative, objAt, objAtPath, setDefault } from './util.ts';

/** Job pods may not restart in place: the job controller creates new ones (real ValidateJobSpec). */
export const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];

// ---- Job ----

export function defaultJobSpec(spec: Obj): void {
  // Both unset: a single pod (real SetDefaults_Job); parallelism alone defaults to 1.
  if (isUnset(spec.completions) && isUnset(spec.parallelism)) spec.completions = 1;
  setDefault(spec, 'parallelism', 1);
  const backoff = tableDefault('JobSpec', 'backoffLimit');
  if (!isZeroValue(backoff)) setDefault(spec, 'backoffLimit', backoff);
  defaultTemplate(objAt(spec, 'template'));
}

export function defaultJob(obj: KubeObject): void {
  defaultJobSpec((obj.spec ??= {}) as Obj);
  defaultLabelsFromTemplate(obj);
}

/**
 * Unless manualSelector is true, the template gets `controller-uid` and `job-name` labels and the
 * selector selects `controller-uid` (rule.fields.job-manual-selector). The real defaulter shares the
 * label map between the job and its template, so a job without labels of its own ends up with the
 * template's labels, generated ones included.
 */
export function generateJobSelector(obj: KubeObject): void {
  const spec = obj.spec as Obj | undefined;
  if (!isObj(spec) || spec.manualSelector === true) return;
  const template = ensureObj(spec, 'template');
  const meta = ensureObj(template, 'metadata');
  const labels = ensureObj(meta, 'labels') as Record<string, string>;
  // Labels defaulted from the template share its map in the real server (see above); equal maps stand for that here.
  const shared = isDeepStrictEqual(obj.metadata.labels ?? {}, labels);
  const uid = obj.metadata.uid ?? '';
  if (labels['controller-uid'] === undefined) labels['controller-uid'] = uid;
  if (labels['job-name'] === undefined) labels['job-name'] = obj.metadata.name ?? '';
  const selector = ensureObj(spec, 'selector');
  const matchLabels = ensureObj(selector, 'matchLabels') as Record<string, string>;
  if (matchLabels['controller-uid'] === undefined) matchLabels['controller-uid'] = uid;
  if (shared) obj.metadata.labels = { ...labels };
}

/** Counts and deadlines of a JobSpec (also inside a CronJob's jobTemplate). */
function validateJobCounts(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  nonNegative(errs, `${path}.parallelism`, spec.parallelism);
  nonNegative(errs, `${path}.completions`, spec.completions);
  nonNegative(errs, `${path}.backoffLimit`, spec.backoffLimit);
  atLeast(errs, `${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, tableMinimum('JobSpec', 'activeDeadlineSeconds') ?? 0);
  return errs;
}

/** The generated labels must be present and selected unless the selector is manual (real ValidateGeneratedSelector). */
function validateGeneratedSelector(obj: KubeObject, spec: Obj): FieldError[] {
  if (spec.manualSelector === true) return [];
  const errs: FieldError[] = [];
  const labels = (objAtPath(spec, 'template.metadata')?.labels ?? {}) as Record<string, string>;
  const expected: Record<string, string> = { 'controller-uid': obj.metadata.uid ?? '', 'job-name': obj.metadata.name ?? '' };
  for (const [k, v] of Object.entries(expected)) {
    const field = `spec.template.metadata.labels[${k}]`;
    if (labels[k] === undefined) errs.push(required(field, `must be '${v}'`));
    else if (labels[k] !== v) errs.push(invalidValue(field, labels[k], `must be '${v}'`));
  }
  const matchLabels = (objAt(spec.selector, 'matchLabels') ?? {}) as Record<string, string>;
  const selects = Object.entries(matchLabels).every(([k, v]) => expected[k] === v);
  if (isObj(spec.selector) && !selects) errs.push(invalidValue('spec.selector', spec.selector, '`selector` not auto-generated'));
  return errs;
}

export function validateJob(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs = validateGeneratedSelector(obj, spec);
  errs.push(...validateJobCounts(spec, 'spec'));
  errs.push(...validateWorkloadSelector(spec, 'spec', { what: 'job' }));
  errs.push(...validateTemplate(spec.template, 'spec.template', JOB_RESTART_POLICIES));
  return errs;
}

/** Selector, template and completions are fixed once the job exists (real ValidateJobSpecUpdate). */
export function validateJobUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const n = next.spec as Obj | undefined;
  const o = old.spec as Obj | undefined;
  const errs = validateSelectorImmutable(n, o, 'spec');
  if (!isDeepStrictEqual(n?.template, o?.template)) errs.push(invalidValue('spec.template', n?.template ?? null, 'field is immutable'));
  if (!isDeepStrictEqual(n?.completions, o?.completions)) errs.push(invalidValue('spec.completions', n?.completions ?? null, 'field is immutable'));
  return errs;
}

export const jobStrategy: KindStrategy = {
  applyDefaults: defaultJob,
  prepareForCreate: (obj) => {
    clearStatus(obj);
    generateJobSelector(obj);
  },
  validate: validateJob,
  validateUpdate: validateJobUpdate,
};

registerStrategy('Job', jobStrategy);

// ---- CronJob ----

const CRONJOB_DEFAULTED = ['concurrencyPolicy', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'];
/** CronJob names leave room for the job-name suffix: 63 - 11 (real ValidateCronJob). */
const CRONJOB_NAME_MAX = 52;

export function defaultCronJob(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  // suspend: false is written by the real defaulter (a pointer field, so it shows on the wire).
  for (const f of CRONJOB_DEFAULTED) setDefault(spec, f, tableDefault('CronJobSpec', f));
  defaultTemplate(objAtPath(spec, 'jobTemplate.spec.template'));
}

export function validateCronJob(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name.length > CRONJOB_NAME_MAX) errs.push(invalidValue('metadata.name', name, `must be no more than ${CRONJOB_NAME_MAX} characters`));
  if (typeof spec.schedule !== 'string' || spec.schedule === '') errs.push(required('spec.schedule'));
  else {
    const why = scheduleError(spec.schedule);
    if (why) errs.push(invalidValue('spec.schedule', spec.schedule, why));
  }
  const policies = tableEnum('CronJobSpec', 'concurrencyPolicy');
  if (!policies.includes(spec.concurrencyPolicy as string)) errs.push(notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy ?? '', policies));
  nonNegative(errs, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds);
  nonNegative(errs, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit);
  nonNegative(errs, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit);
  const jobSpec = objAtPath(spec, 'jobTemplate.spec');
  if (!jobSpec) {
    errs.push(required('spec.jobTemplate.spec'));
    return errs;
  }
  const p = 'spec.jobTemplate.spec';
  // The job controller generates each job's selector (real ValidateJobTemplateSpec).
  if (isObj(jobSpec.selector)) {
    errs.push(invalidValue(`${p}.selector`, jobSpec.selector, '`selector` will be auto-generated'));
    errs.push(...validateLabelSelector(jobSpec.selector, `${p}.selector`));
  }
  if (jobSpec.manualSelector === true) errs.push(notSupported(`${p}.manualSelector`, true, ['nil', 'false']));
  errs.push(...validateJobCounts(jobSpec, p));
  errs.push(...validateTemplate(jobSpec.template, `${p}.template`, JOB_RESTART_POLICIES));
  return errs;
}

export const cronJobStrategy: KindStrategy = { applyDefaults: defaultCronJob, validate: validateCronJob, prepareForCreate: clearStatus };

registerStrategy('CronJob', cronJobStrategy);
