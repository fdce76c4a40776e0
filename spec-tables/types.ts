// Typed rows of every table. Optional columns of the YAML are filled with null by the loader,
// so consumers never need to tell "absent" from "null".

/** Columns every row carries. `file` and `table` are added by the loader. */
export interface SpecRowBase {
  id: string;
  section: string;
  spec: string;
  testable: boolean;
  reason: string | null;
  file: string;
  table: TableName;
}

export type TableName =
  | 'prefixes' | 'mediaTypes' | 'negotiation' | 'queryParameters' | 'endpoints' | 'fields' | 'defaultRules' | 'types'
  | 'bodyTypes' | 'rules' | 'errors' | 'limits' | 'options' | 'controllers' | 'featureGates' | 'versioning' | 'authentication';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface PrefixRow extends SpecRowBase {
  prefix: string;
  expandsTo: string;
  group: string;
  version: string;
}

export interface MediaTypeRow extends SpecRowBase {
  mediaType: string;
  /** object: a whole-object representation; stream: watch framing; patch: a PATCH body format. */
  use: 'object' | 'stream' | 'patch';
  produces: boolean;
  consumes: boolean;
  verbs: Verb[];
  isDefault: boolean;
  protobuf: boolean;
}

export interface NegotiationRow extends SpecRowBase {
  rule: string;
  behaviour: string;
  statement: string;
  statusCode: number | null;
  mediaType: string | null;
}

export interface QueryParameterRow extends SpecRowBase {
  name: string;
  type: 'string' | 'boolean' | 'integer';
  format: 'int32' | null;
  appliesTo: Verb[];
  /** True where only the main resource takes it (get-by-name export/exact, not status or scale). */
  mainResourceOnly: boolean;
  meaning: string;
  default: string | number | boolean | null;
  defaultText: string | null;
  enum: string[] | null;
  minimum: number | null;
  deprecated: boolean;
  conflictsWith: string | null;
  notWith: string[] | null;
  requires: string | null;
}

export interface EndpointRow extends SpecRowBase {
  method: HttpMethod;
  /** Full path with the prefix expanded and parameters written {namespace} and {name}. */
  path: string;
  /** The path as the spec writes it (CORE/namespaces/<namespace>/configmaps). */
  specPath: string;
  prefix: string;
  group: string;
  version: string;
  resource: string | null;
  subresource: 'status' | 'scale' | 'finalize' | null;
  kind: string | null;
  verb: Verb;
  /** root: discovery; cluster-wide: all namespaces of a namespaced resource; namespaced; cluster-scoped. */
  scope: 'root' | 'cluster-wide' | 'namespaced' | 'cluster-scoped';
  resourceNamespaced: boolean | null;
  pathParams: Array<'namespace' | 'name'>;
  bodyType: string | null;
  bodyRequired: boolean;
  responseCodes: number[];
  responseType: string;
  responseApiVersion: string | null;
  responseText: string;
}

export type Scalar = string | number | boolean | null;

export interface FieldRow extends SpecRowBase {
  /** Owning type: ObjectMeta, Container, DeploymentSpec, Unknown ... */
  type: string;
  name: string;
  group: string | null;
  version: string | null;
  /** "group/version Kind" strings; "*" for every object, "*List" for every list. */
  kinds: string[];
  appliesTo: string | null;
  /** Path within the kind (spec.replicas); container.<field> for Container rows (see the types table). */
  jsonPath: string;
  /** The type as the spec words it ("integer", "string array", "LabelSelector"); null where not given. */
  jsonType: string | null;
  jsonTypeNote: string | null;
  default: Scalar;
  defaultText: string | null;
  defaultRule: string | null;
  enum: string[] | null;
  enumNote: string | null;
  rule: string | null;
  updatable: boolean;
  patchMergeKey: string | null;
  patchStrategy: 'merge' | 'replace' | null;
  protobufField: number | null;
  format: string | null;
  pattern: string | null;
  stage: 'alpha' | 'beta' | null;
  requires: string | null;
  rounding: 'up' | 'down' | null;
  notZeroWhenZero: string | null;
  minimum: number | null;
}

export interface DefaultRuleRow extends SpecRowBase {
  field: string;
  statement: string;
  cases: Array<{ when: string; value: Scalar }>;
  note: string | null;
}

export interface TypeRow extends SpecRowBase {
  name: string;
  group: string;
  version: string;
  jsonPathPrefix: string;
  embeddedAt: Array<{ kind: string; path: string }>;
}

export interface BodyTypeRow extends SpecRowBase {
  name: string;
  use: string;
  shape: string[] | null;
  fieldsShown: boolean;
}

export interface RuleRow extends SpecRowBase {
  statement: string;
  refs: string[] | null;
}

export interface ErrorRow extends SpecRowBase {
  code: number | null;
  names: string[];
  condition: string;
  statement: string;
  clientAction: string | null;
  body: { kind: string; status: string; code: number } | null;
}

export interface LimitRow extends SpecRowBase {
  item: string;
  limit: string;
  value: Scalar;
  unit: string | null;
  values: Record<string, Scalar> | null;
  refs: string[] | null;
}

export type OptionType = 'ip' | 'int32' | 'flag' | 'duration' | 'string' | 'stringSlice' | 'mapStringBool' | 'float' | 'float32' | 'version[=true]';

export interface OptionConstraint {
  text: string;
  requires?: string;
  atMost?: string;
  greaterThan?: string;
  oneOf?: string[];
  affects?: string;
  dependsOn?: string;
  overrides?: string;
  valuesFrom?: 'controllers' | 'featureGates';
}

export interface OptionRow extends SpecRowBase {
  /** Exactly as the spec writes it, leading dashes included. */
  name: string;
  type: OptionType;
  default: string | number | boolean | string[] | Record<string, boolean> | null;
  defaultText: string;
  group: string;
  purpose: string;
  enum: string[] | null;
  constraints: OptionConstraint[];
}

export interface ControllerRow extends SpecRowBase {
  name: string;
  enabledByDefault: boolean;
}

export interface FeatureGateRow extends SpecRowBase {
  name: string;
  stage: 'alpha' | 'beta' | null;
  default: boolean;
}

export interface VersioningRow extends SpecRowBase {
  statement: string;
  groupVersions: string[] | null;
  refs: string[] | null;
}

export interface AuthenticationRow extends SpecRowBase {
  statement: string;
  options: string[] | null;
  refs: string[] | null;
}

export type SpecRow =
  | PrefixRow | MediaTypeRow | NegotiationRow | QueryParameterRow | EndpointRow | FieldRow | DefaultRuleRow | TypeRow
  | BodyTypeRow | RuleRow | ErrorRow | LimitRow | OptionRow | ControllerRow | FeatureGateRow | VersioningRow | AuthenticationRow;
