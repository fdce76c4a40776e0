// Descriptions of every API type the simulator serves and of each of their fields: what the OpenAPI documents
// (simulator/openapi/) carry, so `kubectl explain` prints text. The data is one table per API package beside
// this file; the specification's own words win where it has them (the "name | type | description" rows of
// spec-tables/fields.yaml, by type name). Lists (<Kind>List) are described from their kind's entry.
// descriptions.test.ts fails when any definition of the documents or any of its properties has no description.

import { loadSpecTables } from '../../../../spec-tables/index.ts';
import type { PackageDescriptions, TypeDescription } from './common.ts';
import { META_V1 } from './meta-v1.ts';
import { CORE_V1 } from './core-v1.ts';
import { APPS_V1 } from './apps-v1.ts';
import { EXTENSIONS_V1BETA1 } from './extensions-v1beta1.ts';
import { BATCH } from './batch.ts';
import { AUTOSCALING_V1 } from './autoscaling-v1.ts';
import { POLICY_V1BETA1 } from './policy-v1beta1.ts';
import { RBAC_V1 } from './rbac-v1.ts';
import { AUTHORIZATION_V1 } from './authorization-v1.ts';
import { CERTIFICATES } from './certificates.ts';
import { METRICS_V1BETA1 } from './metrics-v1beta1.ts';
import { STORAGE } from './storage.ts';

export type { PackageDescriptions, TypeDescription } from './common.ts';

export const TABLES: readonly PackageDescriptions[] = [
  META_V1, CORE_V1, APPS_V1, EXTENSIONS_V1BETA1, BATCH, AUTOSCALING_V1, POLICY_V1BETA1, RBAC_V1, AUTHORIZATION_V1, CERTIFICATES, METRICS_V1BETA1, STORAGE,
];

/** "io.k8s.api.apps.v1.Deployment" -> ["io.k8s.api.apps.v1", "Deployment"]. */
function split(definition: string): [string, string] {
  const dot = definition.lastIndexOf('.');
  return [definition.slice(0, dot), definition.slice(dot + 1)];
}

function tableEntry(pkg: string, short: string): TypeDescription | undefined {
  for (const table of TABLES) {
    if (!table.packages.includes(pkg)) continue;
    for (const t of [table, ...(table.also ?? [])]) if (t.types[short]) return t.types[short];
  }
  return undefined;
}

function listEntry(pkg: string, short: string): TypeDescription | undefined {
  if (!short.endsWith('List')) return undefined;
  const kind = short.slice(0, -'List'.length);
  if (!tableEntry(pkg, kind)) return undefined;
  return {
    description: `A list of ${kind} objects, as a list request answers it.`,
    fields: {
      items: `The ${kind} objects, ordered by namespace and name.`,
      metadata: 'List metadata: the resourceVersion the list was read at, and the continue token of the next chunk when the answer is chunked.',
    },
  };
}

let specWords: Map<string, string> | undefined;

/** "Type.field" -> description, from the spec rows written as "name | type | description". */
function specFieldWords(): Map<string, string> {
  if (specWords) return specWords;
  specWords = new Map();
  for (const row of loadSpecTables().fields) {
    const m = /^(\S+) \| [^|]+ \| (.+)$/.exec(row.spec ?? '');
    if (m && m[1] === row.name) specWords.set(`${row.type}.${row.name}`, m[2].trim());
  }
  return specWords;
}

/** The description of a definition ("io.k8s.api.apps.v1.Deployment"), undefined when no table has it. */
export function describeType(definition: string): string | undefined {
  const [pkg, short] = split(definition);
  return (tableEntry(pkg, short) ?? listEntry(pkg, short))?.description;
}

/**
 * The description of one JSON field of a definition: the spec's words for that type and field, else the
 * package table's (the list rule for <Kind>List), else, for the fields every object has (apiVersion, kind,
 * metadata, spec, status), the spec's words for objects in general.
 */
export function describeField(definition: string, field: string): string | undefined {
  const [pkg, short] = split(definition);
  const words = specFieldWords();
  return words.get(`${short}.${field}`)
    ?? (tableEntry(pkg, short) ?? listEntry(pkg, short))?.fields[field]
    ?? words.get(`Object.${field}`);
}
