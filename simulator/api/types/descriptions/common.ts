// The shape of the description tables (one file per API package beside this one) and the helpers they share.
// Descriptions are the project's own words; where the specification describes a field in its table form
// ("name | type | description", spec-tables/fields.yaml), index.ts takes the spec's words instead.

/** What one API type and its JSON fields mean. */
export interface TypeDescription {
  description: string;
  fields: Readonly<Record<string, string>>;
}

/** The types of one or more API packages ("io.k8s.api.apps.v1"), by their short name. */
export interface PackageDescriptions {
  packages: readonly string[];
  types: Readonly<Record<string, TypeDescription>>;
  /** Tables also searched for a type this one lacks (extensions/v1beta1 shares most of its types with apps/v1). */
  also?: readonly PackageDescriptions[];
}

export const t = (description: string, fields: Record<string, string> = {}): TypeDescription => ({ description, fields });

/**
 * A status condition type (DeploymentCondition, PodCondition, ...): the same five or six fields everywhere, with
 * the kinds of condition named in the type's description.
 */
export function condition(of: string, types: string, extra: Record<string, string> = {}): TypeDescription {
  return t(`One observation of the ${of}'s state: a condition type (${types}), whether it holds, and why.`, {
    type: `Which condition this is (${types}).`,
    status: 'Whether the condition holds: True, False or Unknown.',
    reason: 'A one-word, CamelCase cause of the last transition, for machines.',
    message: 'A sentence about the last transition, for people.',
    lastTransitionTime: 'When status last changed from one value to another.',
    ...extra,
  });
}

export const LAST_UPDATE_TIME = 'When this condition was last written, whether or not its status changed.';
export const LAST_PROBE_TIME = 'When the condition was last checked.';

/** Fields every workload spec shares. */
export const SELECTOR = 'A label query over pods; the pods it matches are the ones this object manages. It must match the labels of the template.';
export const TEMPLATE = 'The pod this object creates: its labels, annotations and spec.';
export const MIN_READY_SECONDS = 'How long, in seconds, a new pod must be ready, with no container crashing, before it counts as available. 0: as soon as it is ready.';
export const REVISION_HISTORY_LIMIT = 'How many old revisions are kept to allow a rollback.';
export const OBSERVED_GENERATION = 'The metadata.generation the controller last acted on; when it equals the object\'s generation the status describes the current spec.';
export const COLLISION_COUNT = 'How many times the hash of the template collided with an existing name; the controller mixes it into the next name.';
export const INT_OR_PERCENT = 'an absolute number (5) or a percentage of the desired pods ("10%")';
