// IntOrString fields of rolling updates (maxSurge, maxUnavailable): a non-negative integer or a
// percentage string, with the rounding the spec rows name (RollingUpdateDeployment.*.rounding).

import { type FieldError, invalidValue } from '../field-errors.ts';

const PERCENT = /^[0-9]+%$/;

/** Validation of one IntOrString value as a count or percentage (the real ValidatePositiveIntOrPercent). */
export function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') {
    if (!PERCENT.test(v)) return [invalidValue(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
    return [];
  }
  if (typeof v === 'number' && v < 0) return [invalidValue(path, v, 'must be greater than or equal to 0')];
  return [];
}

/** The percentage of a percent string, or undefined for integers. */
export function percentOf(v: unknown): number | undefined {
  return typeof v === 'string' && PERCENT.test(v) ? Number(v.slice(0, -1)) : undefined;
}

/** Whether a value is zero (0 or "0%"). */
export function isZeroIntOrPercent(v: unknown): boolean {
  return v === 0 || percentOf(v) === 0;
}

/** Scaled value against a total, rounding as the row says (maxSurge up, maxUnavailable down). */
export function scaledValue(v: unknown, total: number, rounding: 'up' | 'down'): number {
  const p = percentOf(v);
  if (p === undefined) return typeof v === 'number' ? v : 0;
  const exact = (p * total) / 100;
  return rounding === 'up' ? Math.ceil(exact) : Math.floor(exact);
}
