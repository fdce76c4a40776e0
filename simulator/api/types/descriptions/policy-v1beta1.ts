// Descriptions of the policy group's types (policy/v1beta1): PodDisruptionBudget, Eviction.

import { t, type PackageDescriptions } from './common.ts';

export const POLICY_V1BETA1: PackageDescriptions = {
  packages: ['io.k8s.api.policy.v1beta1'],
  types: {
    PodDisruptionBudget: t('Limits how many pods of a set may be down at once through voluntary disruptions (evictions, drains).', {
      spec: 'The pods and how many must stay up (or may be down).',
      status: 'How many pods are healthy and how many disruptions are allowed now.',
    }),
    PodDisruptionBudgetSpec: t('The pods a budget protects and how much.', {
      minAvailable: 'Pods that must stay available after an eviction: a number or a percentage. Excludes maxUnavailable.',
      maxUnavailable: 'Pods that may be unavailable after an eviction: a number or a percentage. Excludes minAvailable.',
      selector: 'The pods protected.',
    }),
    PodDisruptionBudgetStatus: t('The state of a budget, as the disruption controller last computed it.', {
      observedGeneration: 'The generation of the budget last acted on.',
      disruptedPods: 'Pods evicted but not yet gone, with when; the controller counts them as down for a while.',
      disruptionsAllowed: 'How many pods may be evicted now.',
      currentHealthy: 'Pods healthy now.',
      desiredHealthy: 'Pods that must stay healthy.',
      expectedPods: 'Pods the budget counts.',
    }),
    Eviction: t('Asks to evict a pod (POST to its eviction subresource): granted when no disruption budget forbids it, then the pod is deleted.', {
      metadata: 'Names the pod to evict.',
      deleteOptions: 'The options of the pod\'s deletion (grace period, preconditions).',
    }),
  },
};
