// The spec's field rows as the kind rules read them: defaults, enums, "Not updatable" flags and the
// conditional image-tag default. Every rule that the spec tables state is taken from here, so a changed
// row changes the simulator's behaviour; nothing in the kind modules repeats a value the tables hold.

import { loadSpecTables, type FieldRow, type Scalar } from '../../../spec-tables/index.ts';

function row(type: string, field: string): FieldRow {
  const r = loadSpecTables().fieldRow(type, field);
  if (!r) throw new Error(`spec tables: no field row ${type}.${field}`);
  return r;
}

/** The id of a field row, for comments, errors and test names. */
export function rowId(type: string, field: string): string {
  return row(type, field).id;
}

/** The machine default of a field row (throws when the row has none: a rule asked for a default the spec does not give). */
export function tableDefault(type: string, field: string): Scalar {
  const r = row(type, field);
  if (r.default === null) throw new Error(`spec tables: ${r.id} has no default`);
  return r.default;
}

/**
 * Whether a default is the Go zero value of its field (0, false, ""). The real server writes such fields
 * with omitempty, so defaulting them is invisible on the wire; the rules leave them unset rather than
 * show a `"minReadySeconds": 0` the real server never sends (wire-facts 1.2/5).
 */
export function isZeroValue(v: Scalar): boolean {
  return v === 0 || v === false || v === '';
}

/** The allowed values of a field row. */
export function tableEnum(type: string, field: string): string[] {
  const r = row(type, field);
  if (!r.enum) throw new Error(`spec tables: ${r.id} has no enum`);
  return [...r.enum];
}

/** The lower bound a row states (activeDeadlineSeconds: 1), or undefined. */
export function tableMinimum(type: string, field: string): number | undefined {
  return row(type, field).minimum ?? undefined;
}

/** Fields of a type the spec marks "Not updatable" (Container: name, image pull policy, command, ...). */
export function notUpdatableFields(type: string): string[] {
  return loadSpecTables()
    .fields.filter((f) => f.type === type && f.updatable === false)
    .map((f) => f.name);
}

/**
 * The imagePullPolicy default for an image, from the `image-tag` default rule: the first case applies to
 * the :latest tag (and to an image with neither tag nor digest, which image parsers read as :latest),
 * the second to every other reference. A digest (`@sha256:...`) counts as pinned.
 */
let pullPolicies: { latest: string; other: string } | undefined;

export function imagePullPolicyDefault(image: string): string {
  const r = row('Container', 'imagePullPolicy');
  // The rule's two values, found once (every container of every pod created asks).
  if (!pullPolicies) {
    const rule = loadSpecTables().defaultRules.find((d) => d.id === `defaultRule.${r.defaultRule}`);
    if (!rule || rule.cases.length < 2) throw new Error(`spec tables: default rule ${r.defaultRule} for ${r.id} is missing or incomplete`);
    pullPolicies = { latest: String(rule.cases[0].value), other: String(rule.cases[1].value) };
  }
  return imageTagIsLatest(image) ? pullPolicies.latest : pullPolicies.other;
}

/** Whether an image reference means :latest (explicit tag latest, or no tag and no digest). */
export function imageTagIsLatest(image: string): boolean {
  // A digest pins the image unless a tag is given too: the real parser reads `name:latest@sha256:...` as tag
  // latest, and only a reference with neither tag nor digest defaults to latest.
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  // The tag follows the last ':' after the last '/' (a ':' before a '/' is a registry port).
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  if (colon < 0) return at < 0;
  return name.slice(colon + 1) === 'latest';
}
