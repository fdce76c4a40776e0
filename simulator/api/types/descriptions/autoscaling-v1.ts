// Descriptions of the autoscaling group's types (autoscaling/v1): HorizontalPodAutoscaler and Scale.

import { t, type PackageDescriptions } from './common.ts';

export const AUTOSCALING_V1: PackageDescriptions = {
  packages: ['io.k8s.api.autoscaling.v1'],
  types: {
    HorizontalPodAutoscaler: t('Scales a workload\'s replica count up and down so that its pods\' average CPU use stays near a target.', {
      spec: 'The workload, the replica bounds and the CPU target.',
      status: 'Current and desired replicas, and the CPU use last measured.',
    }),
    HorizontalPodAutoscalerSpec: t('What an autoscaler scales and towards what.', {
      scaleTargetRef: 'The workload scaled, through its scale subresource.',
      minReplicas: 'The fewest replicas. Default 1.',
      maxReplicas: 'The most replicas; at least minReplicas.',
      targetCPUUtilizationPercentage: 'The average CPU use of the pods to aim for, as a percentage of their CPU requests. Default 80.',
    }),
    HorizontalPodAutoscalerStatus: t('What the autoscaler last saw and did.', {
      observedGeneration: 'The generation of the autoscaler last acted on.',
      lastScaleTime: 'When the replica count was last changed.',
      currentReplicas: 'The replica count when last measured.',
      desiredReplicas: 'The replica count last asked for.',
      currentCPUUtilizationPercentage: 'The pods\' average CPU use last measured, as a percentage of their requests.',
    }),
    CrossVersionObjectReference: t('A reference to a workload by kind and name.', {
      kind: 'The kind, e.g. Deployment.',
      name: 'The name.',
      apiVersion: 'The group and version of the kind.',
    }),
    Scale: t('The scale subresource of a workload: read or set its replica count.', {
      spec: 'The replica count asked for.',
      status: 'The replica count observed, and the pods\' selector.',
    }),
    ScaleSpec: t('The desired scale.', { replicas: 'How many pods are wanted.' }),
    ScaleStatus: t('The observed scale.', { replicas: 'How many pods there are.', selector: 'The pods\' label selector, as a query string.' }),
  },
};
