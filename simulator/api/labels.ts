// Label selectors: the string syntax of the labelSelector query parameter (equality- and set-based) and the
// LabelSelector object of specs. Written here because no maintained JS library parses the Kubernetes syntax.

export type Operator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export class SelectorParseError extends Error {}

const NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why a label key is invalid, or undefined when it is valid. */
export function labelKeyError(key: string): string | undefined {
  const slash = key.indexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix.length === 0) return 'prefix part must be non-empty';
    if (prefix.length > 253) return 'prefix part must be no more than 253 characters';
    if (!DNS1123_SUBDOMAIN_RE.test(prefix)) return "prefix part a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!NAME_RE.test(name)) return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

/** Why a label value is invalid, or undefined. */
export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (value.length > 0 && !NAME_RE.test(value)) return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function checkKey(key: string): void {
  const err = labelKeyError(key);
  if (err) throw new SelectorParseError(`unable to parse requirement: invalid label key "${key}": ${err}`);
}

function checkValue(value: string): void {
  const err = labelValueError(value);
  if (err) throw new SelectorParseError(`unable to parse requirement: invalid label value: "${value}": ${err}`);
}

export function parseLabelSelector(selector: string | undefined): Requirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  const reqs: Requirement[] = [];
  for (const rawPart of splitTopLevel(selector)) {
    const part = rawPart.trim();
    if (part === '') throw new SelectorParseError(`unable to parse requirement: empty requirement in "${selector}"`);
    let m: RegExpExecArray | null;
    if ((m = /^!\s*([^\s=!<>(),]+)$/.exec(part))) {
      checkKey(m[1]);
      reqs.push({ key: m[1], op: '!', values: [] });
    } else if ((m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part))) {
      checkKey(m[1]);
      const values = m[3].split(',').map((v) => v.trim());
      if (m[3].trim() === '') throw new SelectorParseError(`unable to parse requirement: for 'in', 'notin' operators, values set can't be empty`);
      values.forEach(checkValue);
      reqs.push({ key: m[1], op: m[2] as 'in' | 'notin', values });
    } else if ((m = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/.exec(part))) {
      checkKey(m[1]);
      const op = m[2] === '==' ? '=' : m[2] === '>' ? 'gt' : m[2] === '<' ? 'lt' : (m[2] as '=' | '!=');
      if (op === 'gt' || op === 'lt') {
        if (!/^-?\d+$/.test(m[3])) throw new SelectorParseError(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
      } else checkValue(m[3]);
      reqs.push({ key: m[1], op, values: [m[3]] });
    } else if ((m = /^([^\s=!<>(),]+)$/.exec(part))) {
      checkKey(m[1]);
      reqs.push({ key: m[1], op: 'exists', values: [] });
    } else {
      throw new SelectorParseError(`unable to parse requirement: found '${part}', expected: key, !key, key=value, key!=value, key in (values) or key notin (values)`);
    }
  }
  return reqs;
}

export function matchesRequirements(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = has ? l[r.key] : undefined;
    switch (r.op) {
      case 'exists': if (!has) return false; break;
      case '!': if (has) return false; break;
      case '=': if (v !== r.values[0]) return false; break;
      case '!=': if (has && v === r.values[0]) return false; break;
      case 'in': if (!has || !r.values.includes(v!)) return false; break;
      case 'notin': if (has && r.values.includes(v!)) return false; break;
      case 'gt': if (!has || !/^-?\d+$/.test(v!) || Number(v) <= Number(r.values[0])) return false; break;
      case 'lt': if (!has || !/^-?\d+$/.test(v!) || Number(v) >= Number(r.values[0])) return false; break;
    }
  }
  return true;
}

/** The LabelSelector object of specs (matchLabels + matchExpressions). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Requirements of a LabelSelector object; an empty selector matches everything. */
export function requirementsOf(sel: LabelSelector): Requirement[] {
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, op: '=', values: [v] });
  for (const e of sel.matchExpressions ?? []) {
    const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as Record<string, Operator>)[e.operator];
    if (op) reqs.push({ key: e.key, op, values: e.values ?? [] });
  }
  return reqs;
}
