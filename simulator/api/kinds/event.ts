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
  const o = obj as KubeObject & { involvedObject?: unknown; type?: unknown };
  const involved = isObj(o.involvedObject) ? o.involvedObject : {};
  const ns = obj.metadata.namespace ?? '';
  const ins = typeof involved.namespace === 'string' ? involved.namespace : '';
  const ok = ins === '' ? ns === '' || ns === 'default' : ins === ns;
  if (!ok) errs.push(invalidValue('involvedObject.namespace', ins, 'does not match event.namespace'));
  if (o.type !== undefined && o.type !== null && o.type !== '' && !EVENT_TYPES.includes(o.type as string)) errs.push(notSupported('type', o.type, EVENT_TYPES));
  return errs;
}

registerStrategy('Event', { validate: validateEvent });
