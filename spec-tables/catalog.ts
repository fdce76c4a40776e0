// Which YAML file holds which tables, and what the loader fills in for optional columns a row
// leaves out. Adding a table means one entry here, one YAML file, one schema and one row type.
import type { TableName } from './types.ts';

export interface TableFileEntry {
  /** YAML file beside this module; its schema is schemas/<name>.schema.json. */
  file: string;
  /** Top-level keys of the YAML document, each a list of rows, with the fill-ins for optional columns. */
  tables: Partial<Record<TableName, Record<string, unknown>>>;
}

const BASE = { testable: true, reason: null };

export const CATALOG: readonly TableFileEntry[] = [
  { file: 'prefixes.yaml', tables: { prefixes: BASE } },
  { file: 'media-types.yaml', tables: { mediaTypes: BASE, negotiation: BASE } },
  {
    file: 'query-parameters.yaml',
    tables: {
      queryParameters: {
        ...BASE, format: null, mainResourceOnly: false, default: null, defaultText: null, enum: null, minimum: null, deprecated: false,
        conflictsWith: null, notWith: null, requires: null,
      },
    },
  },
  { file: 'endpoints.yaml', tables: { endpoints: { ...BASE, responseApiVersion: null } } },
  {
    file: 'fields.yaml',
    tables: {
      fields: {
        ...BASE, group: null, version: null, appliesTo: null, jsonTypeNote: null, default: null, defaultText: null, defaultRule: null,
        enum: null, enumNote: null, rule: null, updatable: true, patchMergeKey: null, patchStrategy: null, protobufField: null,
        format: null, pattern: null, stage: null, requires: null, rounding: null, notZeroWhenZero: null, minimum: null,
      },
      defaultRules: { ...BASE, note: null },
      types: BASE,
    },
  },
  { file: 'body-types.yaml', tables: { bodyTypes: BASE } },
  { file: 'rules.yaml', tables: { rules: { ...BASE, refs: null } } },
  { file: 'errors.yaml', tables: { errors: { ...BASE, clientAction: null, body: null } } },
  { file: 'limits.yaml', tables: { limits: { ...BASE, unit: null, values: null, refs: null } } },
  { file: 'daemon-options.yaml', tables: { options: { ...BASE, enum: null, constraints: [] } } },
  { file: 'controllers.yaml', tables: { controllers: BASE } },
  { file: 'feature-gates.yaml', tables: { featureGates: BASE } },
  { file: 'versioning.yaml', tables: { versioning: { ...BASE, groupVersions: null, refs: null } } },
  { file: 'authentication.yaml', tables: { authentication: { ...BASE, options: null, refs: null } } },
];

export function schemaFileOf(yamlFile: string): string {
  return `schemas/${yamlFile.replace(/\.yaml$/, '')}.schema.json`;
}
