// Name rules of the real API (DNS-1123 subdomain and label, DNS-1035 label) and generateName.

import { randomInt } from 'node:crypto';
import type { NameRule } from './registry.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Problems with a name under a rule (empty when valid), worded as the real validators word them. */
export function nameErrors(name: string, rule: NameRule, prefix = false): string[] {
  // A generateName prefix may end in '-' or '.'; validate it as if a random suffix followed.
  const n = prefix ? name + 'a' : name;
  switch (rule) {
    case 'dns1123-label':
      if (n.length > 63) return ['must be no more than 63 characters'];
      return DNS1123_LABEL.test(n) ? [] : ["a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"];
    case 'dns1035-label':
      if (n.length > 63) return ['must be no more than 63 characters'];
      return DNS1035_LABEL.test(n) ? [] : ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"];
    case 'dns1123-subdomain':
      if (n.length > 253) return ['must be no more than 253 characters'];
      return DNS1123_SUBDOMAIN.test(n) ? [] : ["a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"];
    case 'path-segment':
      if (n === '.' || n === '..') return [`may not be '${n}'`];
      return /[/%]/.test(n) ? [`may not contain '/' or '%'`] : [];
  }
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName: the base cut to 58 characters plus five random characters from the real alphabet. */
export function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += ALPHANUMS[randomInt(ALPHANUMS.length)];
  return base.slice(0, 58) + suffix;
}
