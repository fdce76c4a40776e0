// The .proto files in ./proto as reflection: which message each (apiVersion, kind) is, the fields of
// every message with their JSON shape, and the patch metadata carried as custom field options. The
// protobuf codec, the patch engine, strict field validation and the OpenAPI documents all read field
// names, shapes and merge keys from here, so they are declared once (in the .proto files).
//
// The .proto files are parsed with protobufjs's own parser (no code generation step) when the first message is
// asked for. What the parse yields here (every message as a plain ProtoMessage) is kept in a file under
// node_modules/.cache/proto-reflection/, named by a hash of the .proto files and of this file: later processes
// read that instead (about 2 ms against 120-180 ms of loading protobufjs's parser and parsing, which the first
// create, PATCH or OpenAPI request after a start used to wait for). A changed .proto file or a changed reading
// here makes another name, so a stale file is never read.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type protobuf from 'protobufjs';
import type { FieldSchema, PatchStrategy, TypeSchema, ValueFormat } from '../api/schema.ts';

const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

/** Every .proto file of ours; imports between them resolve inside PROTO_DIR. */
const PROTO_FILES = [
  'apimachinery-meta-v1.proto',
  'apimachinery-runtime.proto',
  'apimachinery-intstr.proto',
  'apimachinery-resource.proto',
  'api-core-v1.proto',
  'api-apps-v1.proto',
  'api-extensions-v1beta1.proto',
  'api-batch-v1.proto',
  'api-batch-v1beta1.proto',
  'api-autoscaling-v1.proto',
  'api-authorization-v1.proto',
  'api-policy-v1beta1.proto',
  'api-metrics-v1beta1.proto',
  'api-rbac-v1.proto',
  'api-certificates-v1beta1.proto',
  'api-certificates-v1.proto',
  'api-storage-v1.proto',
  'api-storage-v1beta1.proto',
];

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const CORE = 'k8s.io.api.core.v1';
const APPS = 'k8s.io.api.apps.v1';
const EXT = 'k8s.io.api.extensions.v1beta1';

/** Scalar protobuf types the codec supports (all our .proto files use). */
export type ScalarKind = 'string' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'bytes';

/**
 * Messages with a JSON form of their own rather than an object: Time and MicroTime are timestamp
 * strings, Duration a Go duration string, IntOrString a bare number or string, Quantity a string,
 * RawExtension the embedded JSON value, Verbs/ExtraValue a bare string array.
 */
export type SpecialKind = 'time' | 'microtime' | 'duration' | 'intstr' | 'quantity' | 'raw' | 'stringlist';

export type ValueKind = ScalarKind | SpecialKind | 'message';

const SPECIAL_MESSAGES: Readonly<Record<string, SpecialKind>> = {
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microtime',
  [`${META}.Duration`]: 'duration',
  [`${META}.Verbs`]: 'stringlist',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intstr',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'raw',
  'k8s.io.api.authorization.v1.ExtraValue': 'stringlist',
};

const SCALARS: ReadonlySet<string> = new Set<ScalarKind>(['string', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'bytes']);

/** One field of a message as the codec and the schema consumers see it. */
export interface ProtoField {
  /** JSON (and .proto) field name. */
  readonly name: string;
  /** Protobuf field number. */
  readonly id: number;
  /** The kind of the value (for maps: of each map value; for repeated fields: of each element). */
  readonly kind: ValueKind;
  /** Full name (no leading dot) of the message when kind is 'message'. */
  readonly messageName?: string;
  readonly repeated: boolean;
  /** Set for map fields: the key type (always string in our files). */
  readonly mapKey?: ScalarKind;
  /** Go pointer field: on the wire and in JSON only when set. */
  readonly pointer: boolean;
  /** Go JSON tag without omitempty: zero values are still shown. */
  readonly emitEmpty: boolean;
  /** Go embedded struct whose fields are inlined in the parent's JSON. */
  readonly inline: boolean;
  readonly patchStrategy?: PatchStrategy;
  readonly patchMergeKey?: string;
}

export interface ProtoMessage {
  /** Full protobuf name without the leading dot, e.g. "k8s.io.api.core.v1.Container". */
  readonly fullName: string;
  /** Fields in declaration order (the order of the Go struct, hence of keys in JSON). */
  readonly fields: readonly ProtoField[];
}

// ---- loading ----

// The full protobufjs (the .proto parser and reflection: some 40 modules) is loaded with the first schema asked for.
let lib: typeof protobuf | undefined;
const protobufLib = () => (lib ??= createRequire(import.meta.url)('protobufjs') as typeof protobuf);

function loadRoot(): protobuf.Root {
  const require = createRequire(import.meta.url);
  const root = new (protobufLib().Root)();
  root.resolvePath = (_origin: string, target: string): string =>
    target.startsWith('google/protobuf/') ? require.resolve(`protobufjs/${target}`) : path.join(PROTO_DIR, path.basename(target));
  root.loadSync(PROTO_FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

function stripDot(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}

const PATCH_STRATEGIES: ReadonlySet<string> = new Set<PatchStrategy>(['merge', 'replace', 'retainKeys', 'merge,retainKeys']);

function toProtoField(owner: string, field: protobuf.Field): ProtoField {
  const options = (field.options ?? {}) as Record<string, unknown>;
  const where = `${owner}.${field.name}`;
  let kind: ValueKind;
  let messageName: string | undefined;
  const resolved = field.resolvedType;
  if (resolved instanceof protobufLib().Type) {
    const full = stripDot(resolved.fullName);
    const special = SPECIAL_MESSAGES[full];
    kind = special ?? 'message';
    if (!special) messageName = full;
  } else if (SCALARS.has(field.type)) {
    kind = field.type as ScalarKind;
  } else {
    throw new Error(`protobuf schema: ${where} has unsupported type ${field.type}`);
  }
  let mapKey: ScalarKind | undefined;
  if (field instanceof protobufLib().MapField) {
    if (field.keyType !== 'string') throw new Error(`protobuf schema: ${where} has a non-string map key`);
    mapKey = 'string';
  }
  const strategy = options['(k8s.patchStrategy)'];
  if (strategy !== undefined && (typeof strategy !== 'string' || !PATCH_STRATEGIES.has(strategy))) {
    throw new Error(`protobuf schema: ${where} has an unknown patch strategy ${String(strategy)}`);
  }
  const mergeKey = options['(k8s.patchMergeKey)'];
  return {
    name: field.name,
    id: field.id,
    kind,
    messageName,
    repeated: field.repeated,
    mapKey,
    pointer: options['(k8s.pointer)'] === true,
    emitEmpty: options['(k8s.emitEmpty)'] === true,
    inline: options['(k8s.inline)'] === true,
    patchStrategy: strategy as PatchStrategy | undefined,
    patchMergeKey: typeof mergeKey === 'string' ? mergeKey : undefined,
  };
}

/**
 * Packages whose messages are those of another package field for field, under their own names (1.9 declares each
 * twice): rbac v1beta1 is rbac v1, networking.k8s.io/v1's NetworkPolicy types are extensions/v1beta1's. A copy's
 * references to the copied messages name the copies; other references stay.
 */
const PACKAGE_COPIES: ReadonlyArray<{ from: string; to: string; messages?: readonly string[] }> = [
  { from: 'k8s.io.api.rbac.v1', to: 'k8s.io.api.rbac.v1beta1' },
  {
    from: EXT, to: 'k8s.io.api.networking.v1',
    messages: ['NetworkPolicy', 'NetworkPolicyList', 'NetworkPolicySpec', 'NetworkPolicyIngressRule', 'NetworkPolicyEgressRule', 'NetworkPolicyPeer', 'NetworkPolicyPort', 'IPBlock'],
  },
];

function addPackageCopies(out: Map<string, ProtoMessage>): void {
  for (const { from, to, messages } of PACKAGE_COPIES) {
    const copied = (full: string) => full.startsWith(`${from}.`) && (!messages || messages.includes(full.slice(from.length + 1)));
    for (const m of [...out.values()].filter((x) => copied(x.fullName))) {
      const fullName = `${to}${m.fullName.slice(from.length)}`;
      const fields = m.fields.map((f) => (f.messageName && copied(f.messageName) ? { ...f, messageName: `${to}${f.messageName.slice(from.length)}` } : f));
      out.set(fullName, { fullName, fields });
    }
  }
}

/** Every message of the .proto files (nested ones too) as the codec and schemas see it, by full name. */
export function parseProtoMessages(): Map<string, ProtoMessage> {
  const out = new Map<string, ProtoMessage>();
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      // google/protobuf/descriptor.proto comes in with the custom options (extensions.proto); no field refers to it.
      if (nested.fullName === '.google') continue;
      if (nested instanceof protobufLib().Type) {
        const name = stripDot(nested.fullName);
        // fieldsArray keeps declaration order; protobufjs orders nothing by id here.
        out.set(name, { fullName: name, fields: nested.fieldsArray.map((f) => toProtoField(name, f)) });
      }
      if (nested instanceof protobufLib().Namespace) visit(nested);
    }
  };
  visit(loadRoot());
  addPackageCopies(out);
  return out;
}

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/proto-reflection/', import.meta.url));

/** The name of the reflection file of these .proto files as this file reads them. */
function reflectionFileName(): string {
  const hash = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of PROTO_FILES) hash.update('\0').update(file).update('\0').update(readFileSync(path.join(PROTO_DIR, file)));
  return `${hash.digest('hex').slice(0, 24)}.json`;
}

/**
 * The messages from the reflection file when there is a current one; else parsed, and the file written for the
 * next process (aside, then renamed into place; older files removed). Never fails for the file's sake: a directory
 * that cannot be written only means the next process parses too.
 */
export function loadProtoMessages(cacheDir = CACHE_DIR): Map<string, ProtoMessage> {
  let file: string | undefined;
  try {
    file = path.join(cacheDir, reflectionFileName());
    const list = JSON.parse(readFileSync(file, 'utf8')) as ProtoMessage[];
    return new Map(list.map((m) => [m.fullName, m]));
  } catch {
    // No current file (or sources unreadable): parse.
  }
  const parsed = parseProtoMessages();
  if (file) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify([...parsed.values()]));
      renameSync(tmp, file);
      for (const other of readdirSync(cacheDir)) if (other !== path.basename(file) && !other.endsWith('.tmp')) rmSync(path.join(cacheDir, other), { force: true });
    } catch {
      // Read-only or gone: the next process parses again.
    }
  }
  return parsed;
}

let messages: Map<string, ProtoMessage> | undefined;

/** The message of that full name (with or without a leading dot), or undefined. */
export function protoMessage(fullName: string): ProtoMessage | undefined {
  if (typeof fullName !== 'string') return undefined;
  return (messages ??= loadProtoMessages()).get(stripDot(fullName));
}

// ---- kinds ----

/** Which message each kind of each group/version is; list kinds are `<Kind>List`. */
const KIND_TABLE: ReadonlyArray<{ apiVersion: string; pkg: string; kinds: readonly string[]; lists?: boolean }> = [
  {
    apiVersion: 'v1',
    pkg: CORE,
    kinds: [
      'Namespace', 'ConfigMap', 'Secret', 'Service', 'Event', 'Pod', 'Node', 'Endpoints', 'ServiceAccount', 'ReplicationController', 'ResourceQuota', 'PersistentVolume',
      'PersistentVolumeClaim', 'LimitRange', 'PodTemplate', 'ComponentStatus',
    ],
    lists: true,
  },
  { apiVersion: 'v1', pkg: CORE, kinds: ['Binding'] },
  { apiVersion: 'apps/v1', pkg: APPS, kinds: ['Deployment', 'DaemonSet', 'ReplicaSet', 'StatefulSet', 'ControllerRevision'], lists: true },
  { apiVersion: 'extensions/v1beta1', pkg: EXT, kinds: ['Deployment', 'DaemonSet', 'ReplicaSet', 'Ingress', 'NetworkPolicy', 'PodSecurityPolicy'], lists: true },
  { apiVersion: 'networking.k8s.io/v1', pkg: 'k8s.io.api.networking.v1', kinds: ['NetworkPolicy'], lists: true },
  { apiVersion: 'extensions/v1beta1', pkg: EXT, kinds: ['Scale', 'DeploymentRollback'] },
  { apiVersion: 'batch/v1', pkg: 'k8s.io.api.batch.v1', kinds: ['Job'], lists: true },
  { apiVersion: 'batch/v1beta1', pkg: 'k8s.io.api.batch.v1beta1', kinds: ['CronJob'], lists: true },
  // batch/v2alpha1 CronJob (1.9's, alpha) has the v1beta1 fields and numbers.
  { apiVersion: 'batch/v2alpha1', pkg: 'k8s.io.api.batch.v1beta1', kinds: ['CronJob'], lists: true },
  { apiVersion: 'autoscaling/v1', pkg: 'k8s.io.api.autoscaling.v1', kinds: ['Scale'] },
  { apiVersion: 'autoscaling/v1', pkg: 'k8s.io.api.autoscaling.v1', kinds: ['HorizontalPodAutoscaler'], lists: true },
  { apiVersion: 'policy/v1beta1', pkg: 'k8s.io.api.policy.v1beta1', kinds: ['PodDisruptionBudget'], lists: true },
  { apiVersion: 'policy/v1beta1', pkg: 'k8s.io.api.policy.v1beta1', kinds: ['Eviction'] },
  { apiVersion: 'metrics.k8s.io/v1beta1', pkg: 'k8s.io.metrics.pkg.apis.metrics.v1beta1', kinds: ['PodMetrics', 'NodeMetrics'], lists: true },
  { apiVersion: 'authorization.k8s.io/v1', pkg: 'k8s.io.api.authorization.v1', kinds: ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'] },
  { apiVersion: 'rbac.authorization.k8s.io/v1', pkg: 'k8s.io.api.rbac.v1', kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'], lists: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1beta1', pkg: 'k8s.io.api.rbac.v1beta1', kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'], lists: true },
  { apiVersion: 'certificates.k8s.io/v1beta1', pkg: 'k8s.io.api.certificates.v1beta1', kinds: ['CertificateSigningRequest'], lists: true },
  { apiVersion: 'certificates.k8s.io/v1', pkg: 'k8s.io.api.certificates.v1', kinds: ['CertificateSigningRequest'], lists: true },
  { apiVersion: 'storage.k8s.io/v1', pkg: 'k8s.io.api.storage.v1', kinds: ['StorageClass'], lists: true },
  // storage.k8s.io/v1beta1 StorageClass has the v1 shape.
  { apiVersion: 'storage.k8s.io/v1beta1', pkg: 'k8s.io.api.storage.v1', kinds: ['StorageClass'], lists: true },
  { apiVersion: 'storage.k8s.io/v1beta1', pkg: 'k8s.io.api.storage.v1beta1', kinds: ['VolumeAttachment'], lists: true },
  // storage.k8s.io/v1alpha1 VolumeAttachment (1.9's, alpha) has the v1beta1 shape and field numbers.
  { apiVersion: 'storage.k8s.io/v1alpha1', pkg: 'k8s.io.api.storage.v1beta1', kinds: ['VolumeAttachment'], lists: true },
  // Older names of the apps group carry the same wire shapes: apps/v1beta1 is the extensions shape
  // (rollbackTo = 8), apps/v1beta2 the apps/v1 shape; their Scale is the extensions one.
  { apiVersion: 'apps/v1beta1', pkg: EXT, kinds: ['Deployment'], lists: true },
  { apiVersion: 'apps/v1beta1', pkg: APPS, kinds: ['StatefulSet', 'ControllerRevision'], lists: true },
  { apiVersion: 'apps/v1beta1', pkg: EXT, kinds: ['Scale', 'DeploymentRollback'] },
  { apiVersion: 'apps/v1beta2', pkg: APPS, kinds: ['Deployment', 'DaemonSet', 'ReplicaSet', 'StatefulSet', 'ControllerRevision'], lists: true },
  { apiVersion: 'apps/v1beta2', pkg: EXT, kinds: ['Scale'] },
];

/**
 * meta/v1 kinds that every group/version serves: Status and the discovery documents are
 * "unversioned" (shown as v1), WatchEvent and the option bodies are registered in each group.
 */
const META_KINDS: ReadonlySet<string> = new Set([
  'Status',
  'APIVersions',
  'APIGroupList',
  'APIGroup',
  'APIResourceList',
  'WatchEvent',
  'DeleteOptions',
  'ListOptions',
]);

const kindIndex = new Map<string, string>();
for (const row of KIND_TABLE) {
  for (const kind of row.kinds) {
    kindIndex.set(`${row.apiVersion}/${kind}`, `${row.pkg}.${kind}`);
    if (row.lists) kindIndex.set(`${row.apiVersion}/${kind}List`, `${row.pkg}.${kind}List`);
  }
}

/** Messages that are a kind of their own (their JSON may carry kind and apiVersion). */
const kindMessages: ReadonlySet<string> = new Set([...kindIndex.values(), ...[...META_KINDS].map((k) => `${META}.${k}`)]);

/** Full message name of that kind in that group/version, or undefined when it has no protobuf form. */
export function messageNameForKind(apiVersion: string, kind: string): string | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const name = kindIndex.get(`${apiVersion}/${kind}`);
  if (name) return name;
  if (META_KINDS.has(kind) && apiVersion !== '') return `${META}.${kind}`;
  return undefined;
}

/** Whether objects of that kind can be served and accepted as application/vnd.kubernetes.protobuf. */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return messageNameForKind(apiVersion, kind) !== undefined;
}

/** Every (apiVersion, kind) pair with a protobuf form in a group/version table (meta kinds listed once under v1). */
export function protobufKinds(): Array<{ apiVersion: string; kind: string }> {
  const out: Array<{ apiVersion: string; kind: string }> = [];
  for (const key of kindIndex.keys()) {
    const slash = key.lastIndexOf('/');
    out.push({ apiVersion: key.slice(0, slash), kind: key.slice(slash + 1) });
  }
  for (const kind of META_KINDS) out.push({ apiVersion: 'v1', kind });
  return out;
}

// ---- TypeSchema ----

const SHAPES: Readonly<Record<Exclude<ValueKind, 'message'>, FieldSchema['type']>> = {
  string: 'string',
  bool: 'boolean',
  int32: 'integer',
  int64: 'integer',
  uint32: 'integer',
  uint64: 'integer',
  bytes: 'bytes',
  time: 'time',
  microtime: 'time',
  duration: 'string',
  intstr: 'int-or-string',
  quantity: 'string',
  raw: 'any',
  stringlist: 'array',
};

function valueShape(field: ProtoField): FieldSchema['type'] {
  return field.kind === 'message' ? 'object' : SHAPES[field.kind];
}

/** OpenAPI-style name: "k8s.io.api.core.v1.Pod" -> "io.k8s.api.core.v1.Pod". */
function openApiName(fullName: string): string {
  return fullName.startsWith('k8s.io.') ? `io.k8s.${fullName.slice('k8s.io.'.length)}` : fullName;
}

function protoNameOf(name: string): string {
  const bare = stripDot(name);
  return bare.startsWith('io.k8s.') ? `k8s.io.${bare.slice('io.k8s.'.length)}` : bare;
}

const FORMATS: Partial<Record<ValueKind, ValueFormat>> = { int32: 'int32', int64: 'int64', uint32: 'uint32', uint64: 'uint64', intstr: 'int32', quantity: 'quantity', duration: 'duration', microtime: 'microtime' };

function fieldSchemaOf(field: ProtoField): FieldSchema {
  const nested = field.messageName ? schemaOfMessage(field.messageName) : undefined;
  const patch: Pick<FieldSchema, 'patchStrategy' | 'patchMergeKey' | 'format'> = {};
  const format = FORMATS[field.kind];
  if (format) patch.format = format;
  if (field.patchStrategy) patch.patchStrategy = field.patchStrategy;
  if (field.patchMergeKey) patch.patchMergeKey = field.patchMergeKey;
  if (field.mapKey) {
    return { type: 'map', elementType: valueShape(field), ...(nested ? { schema: nested } : {}), ...patch };
  }
  if (field.repeated) {
    return { type: 'array', elementType: valueShape(field), ...(nested ? { schema: nested } : {}), ...patch };
  }
  if (field.kind === 'stringlist') return { type: 'array', elementType: 'string', ...patch };
  return { type: valueShape(field), ...(nested ? { schema: nested } : {}), ...patch };
}

class ProtoTypeSchema implements TypeSchema {
  readonly name: string;
  private fieldsByName?: Map<string, FieldSchema>;

  constructor(
    private readonly message: ProtoMessage,
    private readonly isKind: boolean,
  ) {
    this.name = openApiName(message.fullName);
  }

  field(jsonName: string): FieldSchema | undefined {
    return this.fields().get(jsonName);
  }

  fieldNames(): string[] {
    return [...this.fields().keys()];
  }

  // Built on first use so that schemas of mutually referring messages can be created lazily.
  private fields(): Map<string, FieldSchema> {
    if (this.fieldsByName) return this.fieldsByName;
    const out = new Map<string, FieldSchema>();
    if (this.isKind) {
      out.set('kind', { type: 'string' });
      out.set('apiVersion', { type: 'string' });
    }
    const add = (msg: ProtoMessage): void => {
      for (const f of msg.fields) {
        if (f.inline && f.messageName) {
          const inner = protoMessage(f.messageName);
          if (inner) add(inner);
        } else {
          out.set(f.name, fieldSchemaOf(f));
        }
      }
    };
    add(this.message);
    this.fieldsByName = out;
    return out;
  }
}

const schemas = new Map<string, ProtoTypeSchema>();

function schemaOfMessage(fullName: string): ProtoTypeSchema | undefined {
  const cached = schemas.get(fullName);
  if (cached) return cached;
  const msg = protoMessage(fullName);
  if (!msg) return undefined;
  const schema = new ProtoTypeSchema(msg, kindMessages.has(msg.fullName));
  schemas.set(msg.fullName, schema);
  return schema;
}

/** The schema of a type by name: "io.k8s.api.core.v1.Container" or the protobuf name "k8s.io.api.core.v1.Container". */
export function typeSchemaByName(fullName: string): TypeSchema | undefined {
  if (typeof fullName !== 'string') return undefined;
  return schemaOfMessage(protoNameOf(fullName));
}

/** The schema of a kind's JSON form (with kind and apiVersion), or undefined when the kind is unknown. */
export function typeSchemaFor(apiVersion: string, kind: string): TypeSchema | undefined {
  const name = messageNameForKind(apiVersion, kind);
  return name ? schemaOfMessage(name) : undefined;
}
