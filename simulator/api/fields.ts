// Field selectors (the fieldSelector query parameter): `a=b`, `a==b`, `a!=b`, joined by commas; backslash
// escapes `,` `=` `!` and `\` inside values, as the real parser allows.

import type { KubeObject } from './meta.ts';
import { SelectorParseError } from './labels.ts';

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && i + 1 < s.length) {
      cur += ch + s[i + 1];
      i++;
    } else if (ch === sep) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

export function parseFieldSelector(selector: string | undefined): FieldRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  const reqs: FieldRequirement[] = [];
  for (const part of splitUnescaped(selector, ',')) {
    if (part === '') throw new SelectorParseError(`invalid field selector: empty requirement in "${selector}"`);
    const m = /^([^=!]+?)\s*(==|!=|=)(.*)$/.exec(part);
    if (!m) throw new SelectorParseError(`invalid selector: '${part}'; can't understand '${part}'`);
    reqs.push({ field: m[1].trim(), op: m[2] === '!=' ? '!=' : '=', value: unescape(m[3]) });
  }
  return reqs;
}

export type FieldGetter = (obj: KubeObject) => string | undefined;

/** What one kind can be selected by (api/kinds/field-selectors.ts declares them per kind). */
export interface SelectableFields {
  /** Every selectable field and its value as a string. */
  fields: Readonly<Record<string, FieldGetter>>;
  /** Other spellings the server reads as one of the fields (a pod's spec.host is spec.nodeName). */
  aliases?: Readonly<Record<string, string>>;
}

/** metadata.name and metadata.namespace: what every namespaced kind can be selected by. */
export const META_FIELDS: Readonly<Record<string, FieldGetter>> = {
  'metadata.name': (o) => o.metadata.name ?? '',
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

/** Checks every requirement names a supported field (400 naming it otherwise); returns getters in requirement order. */
export function bindFieldSelector(
  reqs: FieldRequirement[],
  selectable: SelectableFields = { fields: META_FIELDS },
): Array<{ req: FieldRequirement; get: FieldGetter }> {
  return reqs.map((req) => {
    const field = selectable.aliases?.[req.field] ?? req.field;
    const get = Object.hasOwn(selectable.fields, field) ? selectable.fields[field] : undefined;
    if (!get) throw new SelectorParseError(`field label not supported: ${req.field}`);
    return { req, get };
  });
}

export function matchesFields(bound: Array<{ req: FieldRequirement; get: FieldGetter }>, obj: KubeObject): boolean {
  for (const { req, get } of bound) {
    const v = get(obj) ?? '';
    if (req.op === '=' ? v !== req.value : v === req.value) return false;
  }
  return true;
}
