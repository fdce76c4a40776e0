// Field errors: the validation vocabulary of the real server (field.ErrorList in apimachinery), below HTTP.
// Strategies and validators return these; server/errors.ts turns a list of them into a 422 Invalid Status.

import { stringifyJson } from '../util/int64-json.ts';

/** A field-level validation problem, formatted the way the real server formats field errors. */
export interface FieldError {
  type: 'FieldValueNotFound' | 'FieldValueRequired' | 'FieldValueDuplicate' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueForbidden' | 'FieldValueTooLong';
  field: string;
  value?: unknown;
  detail?: string;
}

const typeWords: Record<FieldError['type'], string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
};

function formatValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return stringifyJson(v);
  return String(v);
}

export function fieldErrorBody(e: FieldError): string {
  const words = typeWords[e.type];
  const withValue = e.type !== 'FieldValueRequired' && e.type !== 'FieldValueForbidden' && e.type !== 'FieldValueTooLong';
  let body = withValue ? `${words}: ${formatValue(e.value)}` : words;
  if (e.detail) body += `: ${e.detail}`;
  return body;
}

export const required = (field: string, detail?: string): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const invalidValue = (field: string, value: unknown, detail?: string): FieldError => ({ type: 'FieldValueInvalid', field, value, detail });
export const notSupported = (field: string, value: unknown, valid: string[]): FieldError => ({
  type: 'FieldValueNotSupported', field, value, detail: `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
export const duplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value });
export const forbiddenField = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail });
export const tooLong = (field: string, max: number): FieldError => ({ type: 'FieldValueTooLong', field, detail: `must have at most ${max} characters` });
