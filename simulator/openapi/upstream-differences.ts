// The only differences allowed between the served /openapi/v2 and the real 1.9.4 document
// (../shared/upstream-fixtures/openapi-v1.9.4-swagger.json), each with its reason. upstream-diff.test.ts lists every
// difference (descriptions aside) as one line and fails on a line no rule here matches, and on a rule that matches
// nothing any more (so this file only shrinks as the simulator gets closer).

export interface AllowedDifference {
  /** Matches whole difference lines, e.g. `def <name>.<property>: ...` or `path <path> <method> param <name>: ...`. */
  readonly match: RegExp;
  readonly reason: string;
}

const NEWER_DEFINITIONS = [
  'io\\.k8s\\.api\\.certificates\\.v1\\.\\w+',
  'io\\.k8s\\.metrics\\.pkg\\.apis\\.metrics\\.v1beta1\\.\\w+',
  'io\\.k8s\\.api\\.storage\\.v1beta1\\.(VolumeAttachment\\w*|VolumeError)',
  'io\\.k8s\\.api\\.core\\.v1\\.(NamespaceCondition|PodIP|PodReadinessGate|ServiceAccountTokenProjection|Sysctl)',
  'io\\.k8s\\.apimachinery\\.pkg\\.apis\\.meta\\.v1\\.Duration',
].join('|');

const NEWER_PROPERTIES = [
  'apps\\.v1\\.RollingUpdateDaemonSet\\.maxSurge',
  'batch\\.v1\\.JobSpec\\.ttlSecondsAfterFinished',
  'certificates\\.v1beta1\\.CertificateSigningRequestCondition\\.(lastTransitionTime|status)',
  'certificates\\.v1beta1\\.CertificateSigningRequestSpec\\.(expirationSeconds|signerName)',
  'core\\.v1\\.(ConfigMap\\.(binaryData|immutable)|Secret\\.immutable|Container\\.startupProbe|ContainerStatus\\.started)',
  'core\\.v1\\.(NamespaceStatus\\.conditions|NodeSelectorTerm\\.matchFields|NodeSpec\\.podCIDRs)',
  'core\\.v1\\.(PodSecurityContext|SecurityContext)\\.(runAsGroup|sysctls|procMount)',
  'core\\.v1\\.PodSpec\\.(enableServiceLinks|readinessGates|runtimeClassName|shareProcessNamespace)',
  'core\\.v1\\.(PodStatus\\.podIPs|VolumeProjection\\.serviceAccountToken)',
  'apimachinery\\.pkg\\.apis\\.meta\\.v1\\.(DeleteOptions\\.dryRun|ListMeta\\.remainingItemCount|Preconditions\\.resourceVersion)',
].join('|');

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    match: new RegExp(`^def (${NEWER_DEFINITIONS}): not in 1\\.9$`),
    reason: 'types of kinds and fields the simulator serves beyond 1.9 (certificates.k8s.io/v1, metrics.k8s.io, storage v1beta1 VolumeAttachment, the newer fields below)',
  },
  {
    match: /^path \/apis\/(certificates\.k8s\.io\/v1|metrics\.k8s\.io|storage\.k8s\.io\/v1beta1\/(watch\/)?volumeattachments)\S*: not in 1\.9$/,
    reason: 'routes of those kinds beyond 1.9',
  },
  {
    match: new RegExp(`^def io\\.k8s\\.(api\\.)?(${NEWER_PROPERTIES}): ours \\{.*\\| 1\\.9 undefined$`),
    reason: 'fields added after 1.9 that the simulator accepts from newer clients (written only when a client sets them: omitempty, codec/go-json.ts)',
  },
  {
    match: /^path \S+ (post|put|patch|delete) param (dryRun|fieldManager|fieldValidation): ours \{.*\| 1\.9 undefined$/,
    reason: 'the server honours dryRun, fieldManager and fieldValidation (newer kubectl checks the document for them before `--dry-run=server` and server-side validation)',
  },
  {
    match: /^def io\.k8s\.api\.core\.v1\.NodeConfigSource(\.apiVersion|\.kind| x-kubernetes-group-version-kind): ours undefined \| 1\.9 /,
    reason: '1.9 NodeConfigSource embeds TypeMeta (apiVersion, kind) without a protobuf tag, which a .proto message cannot declare',
  },
  {
    match: /^(def io\.k8s\.api\.(apps\.v1\.(ControllerRevision|StatefulSet|DaemonSet|Deployment|ReplicaSet)(List)?|extensions\.v1beta1\.(Scale|Deployment(List|Rollback)?)|storage\.v1\.StorageClass(List)?|apimachinery\.pkg\.apis\.meta\.v1\.(DeleteOptions|WatchEvent)) x-kubernetes-group-version-kind:|def io\.k8s\.apimachinery\.pkg\.apis\.meta\.v1\.(DeleteOptions|WatchEvent) x-kubernetes-group-version-kind:|path \/apis\/(apps\/v1beta[12]|storage\.k8s\.io\/v1beta1)\/\S+ \w+ (responses|param body):)/,
    reason: 'apps/v1beta1, apps/v1beta2 and storage.k8s.io/v1beta1 are served as aliases of one type (apps/v1 for apps/v1beta2 workloads, extensions/v1beta1 for apps/v1beta1 Deployments and Scale, storage/v1) rather than as definitions of their own; DeleteOptions and WatchEvent also list the groups beyond 1.9',
  },
  {
    match: /^def io\.k8s\.apimachinery\.pkg\.(runtime\.RawExtension (type|required)|runtime\.RawExtension\.Raw|apis\.meta\.v1\.Patch type):/,
    reason: 'RawExtension is described by its JSON (an object), not by its Go field Raw that no JSON carries; Patch says it is an object',
  },
  {
    match: /^path \/api\/v1\/namespaces\/\{namespace\}\/services(\/\{name\})? delete(: ours true 1\.9 false| param (body|gracePeriodSeconds|orphanDependents|propagationPolicy): ours \S+ \| 1\.9 undefined)$/,
    reason: 'Service deletion goes through the generic store here (delete options and deletecollection honoured); 1.9 had its own REST with neither',
  },
  {
    match: /^path \/apis\/certificates\.k8s\.io\/v1beta1\/certificatesigningrequests\/\{name\}\/(approval|status) (get|patch): ours true 1\.9 false$/,
    reason: 'GET and PATCH of the CSR subresources are served (as later releases do)',
  },
  {
    match: /^path \/apis\/rbac\.authorization\.k8s\.io\/v1(beta1)?\/\S+\/\{name\} get param (exact|export): ours \{.*\| 1\.9 undefined$/,
    reason: 'every read takes export and exact here; 1.9 RBAC reads did not declare them',
  },
];
