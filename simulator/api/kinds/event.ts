// Event (core/v1, spec 6.3): stored, listed and watched like any kind. Validation follows the real
// server: the involved object's namespace must be the event's (an event about a cluster-scoped object
// lives in "default" or has no namespace), and the type, when given, is Normal or Warning.

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, notSupported } from '../field-errors.ts';
import { isObj } from './util.ts';

export const EVENT_TYPES = ['Normal', 'Warning'];

export function validateEvent(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const o = obj as KubeObject & { involvedObject?: unknown; regarding?: unknown; type?: unknown };
  // events.k8s.io/v1beta1 names the involved object `regarding` (a create is validated in the request's version,
  // an update in the storage version).
  const field = o.regarding !== undefined && o.involvedObject === undefined ? 'regarding' : 'involvedObject';
  const involved = isObj(o[field]) ? (o[field] as Record<string, unknown>) : {};
  const ns = obj.metadata.namespace ?? '';
  const ins = typeof involved.namespace === 'string' ? involved.namespace : '';
  const ok = ins === '' ? ns === '' || ns === 'default' : ins === ns;
  if (!ok) errs.push(invalidValue(`${field}.namespace`, ins, 'does not match event.namespace'));
  if (o.type !== undefined && o.type !== null && o.type !== '' && !EVENT_TYPES.includes(o.type as string)) errs.push(notSupported('type', o.type, EVENT_TYPES));
  return errs;
}

registerStrategy('Event', { validate: validateEvent });

// ---- events.k8s.io/v1beta1 (1.9): the same Events under the new API's field names ----
// regarding = involvedObject, note = message, reportingController = reportingComponent, and the core fields the
// new API deprecates carry a "deprecated" prefix (deprecatedSource, deprecatedFirstTimestamp,
// deprecatedLastTimestamp, deprecatedCount); eventTime, series, related, action, reason, reportingInstance and type
// keep their names.

const EVENTS_BETA1 = 'events.k8s.io/v1beta1';

/** New name (events.k8s.io/v1beta1) -> core/v1 name. */
export const EVENT_FIELD_RENAMES: Readonly<Record<string, string>> = {
  regarding: 'involvedObject',
  note: 'message',
  reportingController: 'reportingComponent',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
};

function rename(obj: Record<string, unknown>, map: Readonly<Record<string, string>>): void {
  for (const [from, to] of Object.entries(map)) {
    if (!(from in obj)) continue;
    obj[to] = obj[from];
    delete obj[from];
  }
}

const CORE_TO_BETA1 = Object.fromEntries(Object.entries(EVENT_FIELD_RENAMES).map(([a, b]) => [b, a]));

registerStrategy('Event', {
  conversion: {
    toStorage: (obj, from) => {
      if (from === EVENTS_BETA1) rename(obj as unknown as Record<string, unknown>, EVENT_FIELD_RENAMES);
    },
    fromStorage: (out, _stored, apiVersion) => {
      if (apiVersion === EVENTS_BETA1) rename(out as unknown as Record<string, unknown>, CORE_TO_BETA1);
    },
  },
});
