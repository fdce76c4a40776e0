// Descriptions of the extensions group's types (extensions/v1beta1): the workloads as 1.9 still served them there
// (the same meaning as apps/v1, looked up in apps-v1.ts, with the fields only this version has), Ingress, Scale,
// NetworkPolicy (also networking.k8s.io/v1's, the same types) and PodSecurityPolicy.

import { APPS_V1 } from './apps-v1.ts';
import { t, type PackageDescriptions } from './common.ts';

const apps = APPS_V1.types;

export const EXTENSIONS_V1BETA1: PackageDescriptions = {
  packages: ['io.k8s.api.extensions.v1beta1', 'io.k8s.api.networking.v1'],
  also: [APPS_V1],
  types: {
    DeploymentSpec: t(apps.DeploymentSpec.description, {
      rollbackTo: 'Deprecated: the revision to roll back to; the controller clears it once done.',
    }),
    DeploymentRollback: t('A request to roll a deployment back to an earlier revision (POST to deployments/<name>/rollback).', {
      name: 'The deployment\'s name.',
      updatedAnnotations: 'Annotations set on the deployment with the rollback.',
      rollbackTo: 'The revision to go back to.',
    }),
    RollbackConfig: t('Which revision to roll back to.', { revision: 'The revision; 0 means the one before the current.' }),
    DaemonSetSpec: t(apps.DaemonSetSpec.description, {
      ...apps.DaemonSetSpec.fields,
      templateGeneration: 'Deprecated: a counter of template changes, copied onto the pods it made.',
    }),
    DaemonSetUpdateStrategy: t(apps.DaemonSetUpdateStrategy.description, {
      ...apps.DaemonSetUpdateStrategy.fields,
      type: 'OnDelete (default in extensions/v1beta1): a new pod only where the old one was deleted; RollingUpdate: replace pods node by node.',
    }),
    Ingress: t('Rules that route outside HTTP(S) traffic to services by host and path; an ingress controller implements them.', {
      spec: 'The rules, the default backend and TLS.',
      status: 'The load balancer that serves the ingress.',
    }),
    IngressSpec: t('The routing of an ingress.', {
      backend: 'Where requests that no rule matches go.',
      tls: 'TLS settings: which hosts use which certificate.',
      rules: 'Host and path rules; a request matching none goes to backend.',
    }),
    IngressTLS: t('TLS for a set of hosts.', { hosts: 'The hosts the certificate is for.', secretName: 'The kubernetes.io/tls secret with the certificate and key.' }),
    IngressRule: t('Routing for one host.', { host: 'The host name the rule matches; every host when empty.', http: 'Paths and their backends.' }),
    HTTPIngressRuleValue: t('HTTP paths of a rule.', { paths: 'The paths and their backends.' }),
    HTTPIngressPath: t('A path and where its requests go.', { path: 'The path, a regular expression starting with "/"; every path when empty.', backend: 'Where matching requests go.' }),
    IngressBackend: t('A service port requests go to.', { serviceName: 'The service.', servicePort: 'The port, by number or name.' }),
    IngressStatus: t('The state of an ingress.', { loadBalancer: 'The addresses of its load balancer.' }),
    Scale: t('The scale subresource of a workload in extensions/v1beta1: read or set its replica count.', {
      spec: 'The replica count asked for.',
      status: 'The replica count observed, and the pods\' selector.',
    }),
    ScaleSpec: t('The desired scale.', { replicas: 'How many pods are wanted.' }),
    ScaleStatus: t('The observed scale.', {
      replicas: 'How many pods there are.',
      selector: 'The pods\' label selector, as a map.',
      targetSelector: 'The pods\' label selector, as a query string.',
    }),
    NetworkPolicy: t('Which traffic may reach, and leave, the pods it selects in its namespace; enforced by the cluster\'s network plugin.', {
      spec: 'The pods selected and the traffic allowed to and from them.',
    }),
    NetworkPolicySpec: t('The pods a NetworkPolicy applies to and the traffic it allows.', {
      podSelector: 'The pods of the namespace the policy applies to; an empty selector selects every pod.',
      ingress: 'Traffic allowed in: a connection is allowed when any rule matches it. Empty: none (when Ingress is a policy type).',
      egress: 'Traffic allowed out: a connection is allowed when any rule matches it. Empty: none (when Egress is a policy type).',
      policyTypes: 'Which directions the policy governs: Ingress, Egress or both. Defaults to Ingress, plus Egress when egress rules are given.',
    }),
    NetworkPolicyIngressRule: t('Incoming traffic allowed when it comes from one of the peers to one of the ports.', {
      ports: 'The ports traffic may reach; empty: every port.',
      from: 'Where traffic may come from; empty: anywhere.',
    }),
    NetworkPolicyEgressRule: t('Outgoing traffic allowed when it goes to one of the peers on one of the ports.', {
      ports: 'The ports traffic may go to; empty: every port.',
      to: 'Where traffic may go; empty: anywhere.',
    }),
    NetworkPolicyPeer: t('One source or destination of traffic: exactly one of pods, namespaces or an address block.', {
      podSelector: 'Pods of the policy\'s namespace with these labels.',
      namespaceSelector: 'Every pod of the namespaces with these labels.',
      ipBlock: 'Addresses in this block.',
    }),
    NetworkPolicyPort: t('A port and protocol traffic may use.', {
      protocol: 'TCP or UDP; defaults to TCP.',
      port: 'A port number or the name of a container port; empty: every port.',
    }),
    IPBlock: t('A block of addresses, less some blocks inside it.', {
      cidr: 'The block, as a CIDR such as 10.0.0.0/8.',
      except: 'Blocks inside it that do not count, each a strict subset of cidr.',
    }),
    PodSecurityPolicy: t('What a pod may ask for: privileges, host namespaces, volumes, user and group IDs. The PodSecurityPolicy admission step admits a pod when a policy its user or service account may use allows it.', {
      spec: 'The rules and defaults of the policy.',
    }),
    PodSecurityPolicySpec: t('The rules of a PodSecurityPolicy, and the defaults it gives pods that leave fields unset.', {
      privileged: 'Whether containers may run privileged.',
      defaultAddCapabilities: 'Capabilities added to every container unless it drops them.',
      requiredDropCapabilities: 'Capabilities every container must drop; added to its drops when missing.',
      allowedCapabilities: 'Capabilities a container may add besides the default ones; "*" for any.',
      volumes: 'The volume types a pod may use; "*" for any.',
      hostNetwork: 'Whether pods may use the node\'s network namespace.',
      hostPorts: 'The host port ranges containers may expose.',
      hostPID: 'Whether pods may use the node\'s process ID namespace.',
      hostIPC: 'Whether pods may use the node\'s IPC namespace.',
      seLinux: 'The SELinux labels pods may use.',
      runAsUser: 'The user IDs containers may run as.',
      supplementalGroups: 'The supplemental groups pods may use.',
      fsGroup: 'The filesystem groups pods may use.',
      readOnlyRootFilesystem: 'Whether containers must run with a read-only root filesystem.',
      defaultAllowPrivilegeEscalation: 'The allowPrivilegeEscalation a container gets when it sets none.',
      allowPrivilegeEscalation: 'Whether a container may allow privilege escalation; defaults to true.',
      allowedHostPaths: 'The host path prefixes hostPath volumes may use; empty: any.',
      allowedFlexVolumes: 'The flex volume drivers pods may use; empty: any.',
    }),
    HostPortRange: t('A range of host ports, both ends included.', { min: 'The first port.', max: 'The last port.' }),
    IDRange: t('A range of user or group IDs, both ends included.', { min: 'The first ID.', max: 'The last ID.' }),
    SELinuxStrategyOptions: t('How SELinux labels are chosen and checked.', {
      rule: 'MustRunAs (the labels below, given to pods that set none) or RunAsAny.',
      seLinuxOptions: 'The labels required under MustRunAs.',
    }),
    RunAsUserStrategyOptions: t('How the user a container runs as is chosen and checked.', {
      rule: 'MustRunAs (an ID in the ranges; the first given when none is set), MustRunAsNonRoot or RunAsAny.',
      ranges: 'The allowed user IDs under MustRunAs.',
    }),
    SupplementalGroupsStrategyOptions: t('How a pod\'s supplemental groups are chosen and checked.', {
      rule: 'MustRunAs (groups in the ranges; the first given when none is set) or RunAsAny.',
      ranges: 'The allowed group IDs under MustRunAs.',
    }),
    FSGroupStrategyOptions: t('How a pod\'s filesystem group is chosen and checked.', {
      rule: 'MustRunAs (a group in the ranges; the first given when none is set) or RunAsAny.',
      ranges: 'The allowed group IDs under MustRunAs.',
    }),
    AllowedHostPath: t('A host path prefix hostPath volumes may use.', { pathPrefix: 'The prefix, matched by whole path segments (/foo allows /foo/bar, not /food).' }),
    AllowedFlexVolume: t('A flex volume driver pods may use.', { driver: 'The driver\'s name.' }),
  },
};
