// Descriptions of the extensions group's types (extensions/v1beta1): the workloads as 1.9 still served them there
// (the same meaning as apps/v1, looked up in apps-v1.ts, with the fields only this version has), Ingress, Scale.

import { APPS_V1 } from './apps-v1.ts';
import { t, type PackageDescriptions } from './common.ts';

const apps = APPS_V1.types;

export const EXTENSIONS_V1BETA1: PackageDescriptions = {
  packages: ['io.k8s.api.extensions.v1beta1'],
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
  },
};
