// Every controller name the daemon knows (spec 8.2, from the spec tables) mapped to how it starts here:
// the conditions the real 1.9 daemon checks before starting it (resources served by the API, options,
// feature gates, files) and its implementation in this simulator. A controller whose conditions fail, or
// that has no implementation yet, is reported "not started" with the reason, never silently dropped.

import { existsSync } from 'node:fs';
import type { Controller } from '../kit/controller.ts';
import type { DaemonOptions } from '../config/options.ts';
import type { FeatureGates } from '../config/feature-gates.ts';
import { gvrKey, type GroupVersionResourceRef } from '../../client/discovery.ts';
import { namespaceController } from '../namespace-controller.ts';
import { garbageCollector } from '../garbage-collector.ts';
import { serviceAccountController } from '../serviceaccount-controller.ts';
import { serviceAccountTokenController } from '../serviceaccount-token.ts';
import { tokenCleanerController } from '../tokencleaner.ts';
import { csrSigningController } from '../csrsigning.ts';
import { csrApprovingController } from '../csrapproving.ts';
import { csrCleanerController } from '../csrcleaner.ts';
import { bootstrapSignerController } from '../bootstrapsigner.ts';
import { clusterRoleAggregationController } from '../clusterrole-aggregation.ts';
import { cronJobController } from '../cronjob.ts';
import { daemonSetController } from '../daemonset.ts';
import { deploymentController } from '../deployment.ts';
import { endpointsController } from '../endpoints.ts';
import { jobController } from '../job.ts';
import { podGCController } from '../podgc.ts';
import { replicaSetController } from '../replicaset.ts';
import { replicationControllerController } from '../replicationcontroller.ts';
import { statefulSetController } from '../statefulset.ts';
import { resourceQuotaController } from '../resourcequota.ts';
import { disruptionController } from '../disruption.ts';
import { horizontalPodAutoscalerController } from '../horizontal.ts';
import { nodeLifecycleController } from '../node-lifecycle.ts';
import { ttlController } from '../ttl.ts';
import { routeController } from '../route-controller.ts';
import { serviceController } from '../service-controller.ts';
import { CLOUD_PROVIDER_NAME } from '../cloud/simulated-cloud.ts';
import { persistentVolumeBinderController } from '../pv-binder.ts';
import { persistentVolumeExpanderController } from '../pv-expander.ts';
import { pvcProtectionController } from '../pvc-protection.ts';
import { attachDetachController } from '../attachdetach.ts';

export interface StartConditions {
  options: DaemonOptions;
  gates: FeatureGates;
  /** "group/version/resource" keys served by the API. */
  available: ReadonlySet<string>;
}

export interface ControllerPlan {
  /** Alternatives: the controller needs at least one of these resources to be served. */
  requires?: GroupVersionResourceRef[];
  /** Returns why the controller must not start, or undefined. */
  skip?(c: StartConditions): string | undefined;
  /** The control loop; absent when this simulator has none for it. */
  create?(): Controller;
}

const gvr = (group: string, version: string, resource: string): GroupVersionResourceRef => ({ group, version, resource });

const needsCloud = (what: string) => (c: StartConditions) => {
  const provider = c.options.string('--cloud-provider');
  if (provider === '') return `no --cloud-provider is set, so ${what}`;
  if (provider !== CLOUD_PROVIDER_NAME) return `--cloud-provider ${provider} runs its cloud loops outside this daemon`;
  return undefined;
};
const needsGate = (gate: string) => (c: StartConditions) => (c.gates.enabled(gate) ? undefined : `feature gate ${gate} is off`);

/** Registered plans; names missing here are reported as unknown to this build. */
export const CONTROLLER_PLANS: Record<string, ControllerPlan> = {
  attachdetach: { requires: [gvr('', 'v1', 'persistentvolumes')], create: attachDetachController },
  bootstrapsigner: { create: bootstrapSignerController },
  'clusterrole-aggregation': { requires: [gvr('rbac.authorization.k8s.io', 'v1', 'clusterroles')], create: clusterRoleAggregationController },
  cronjob: { requires: [gvr('batch', 'v1beta1', 'cronjobs')], create: cronJobController },
  csrapproving: { requires: [gvr('certificates.k8s.io', 'v1beta1', 'certificatesigningrequests')], create: csrApprovingController },
  csrcleaner: { requires: [gvr('certificates.k8s.io', 'v1beta1', 'certificatesigningrequests')], create: csrCleanerController },
  csrsigning: {
    requires: [gvr('certificates.k8s.io', 'v1beta1', 'certificatesigningrequests')],
    skip: (c) => {
      for (const opt of ['--cluster-signing-cert-file', '--cluster-signing-key-file']) {
        const file = c.options.string(opt);
        if (!existsSync(file)) return `${opt} ${file} does not exist`;
      }
      return undefined;
    },
    create: csrSigningController,
  },
  daemonset: { requires: [gvr('extensions', 'v1beta1', 'daemonsets'), gvr('apps', 'v1', 'daemonsets')], create: daemonSetController },
  deployment: { requires: [gvr('extensions', 'v1beta1', 'deployments'), gvr('apps', 'v1', 'deployments')], create: deploymentController },
  disruption: { requires: [gvr('policy', 'v1beta1', 'poddisruptionbudgets')], create: disruptionController },
  endpoint: { create: endpointsController },
  garbagecollector: {
    skip: (c) => (c.options.bool('--enable-garbage-collector') ? undefined : '--enable-garbage-collector is false'),
    create: garbageCollector,
  },
  horizontalpodautoscaling: { requires: [gvr('autoscaling', 'v1', 'horizontalpodautoscalers')], create: horizontalPodAutoscalerController },
  job: { requires: [gvr('batch', 'v1', 'jobs')], create: jobController },
  namespace: { requires: [gvr('', 'v1', 'namespaces/finalize')], create: namespaceController },
  node: { create: nodeLifecycleController },
  'persistentvolume-binder': { requires: [gvr('', 'v1', 'persistentvolumes')], create: persistentVolumeBinderController },
  'persistentvolume-expander': { requires: [gvr('', 'v1', 'persistentvolumes')], skip: needsGate('ExpandPersistentVolumes'), create: persistentVolumeExpanderController },
  podgc: { create: podGCController },
  'pvc-protection': { requires: [gvr('', 'v1', 'persistentvolumeclaims')], skip: needsGate('PVCProtection'), create: pvcProtectionController },
  replicaset: { requires: [gvr('extensions', 'v1beta1', 'replicasets'), gvr('apps', 'v1', 'replicasets')], create: replicaSetController },
  replicationcontroller: { create: replicationControllerController },
  resourcequota: { requires: [gvr('', 'v1', 'resourcequotas')], create: resourceQuotaController },
  route: {
    skip: (c) => {
      if (!c.options.bool('--allocate-node-cidrs') || !c.options.bool('--configure-cloud-routes')) {
        return `routes are configured only with --allocate-node-cidrs and --configure-cloud-routes (now ${c.options.bool('--allocate-node-cidrs')} and ${c.options.bool('--configure-cloud-routes')})`;
      }
      return needsCloud('there is nowhere to configure routes')(c);
    },
    create: routeController,
  },
  service: { skip: needsCloud('services of type LoadBalancer cannot be provisioned'), create: serviceController },
  serviceaccount: { requires: [gvr('', 'v1', 'serviceaccounts')], create: serviceAccountController },
  'serviceaccount-token': {
    skip: (c) => (c.options.string('--service-account-private-key-file') === '' ? 'no --service-account-private-key-file, so tokens cannot be signed' : undefined),
    create: serviceAccountTokenController,
  },
  statefulset: { requires: [gvr('apps', 'v1beta1', 'statefulsets'), gvr('apps', 'v1', 'statefulsets')], create: statefulSetController },
  tokencleaner: { create: tokenCleanerController },
  ttl: { create: ttlController },
};

export type StartDecision = { start: true; controller: Controller } | { start: false; reason: string };

/** Whether and how to start one enabled controller. */
export function decideStart(name: string, c: StartConditions, plans: Record<string, ControllerPlan> = CONTROLLER_PLANS): StartDecision {
  const plan = plans[name];
  if (!plan) return { start: false, reason: 'unknown to this build of the daemon' };
  if (plan.requires && !plan.requires.some((r) => c.available.has(gvrKey(r)))) {
    return { start: false, reason: `the API does not serve ${plan.requires.map((r) => `${r.group}/${r.version} ${r.resource}`).join(' or ')}` };
  }
  const why = plan.skip?.(c);
  if (why) return { start: false, reason: why };
  if (!plan.create) return { start: false, reason: 'this simulator has no control loop for it yet' };
  return { start: true, controller: plan.create() };
}
