// Descriptions of the metrics group's types (metrics.k8s.io/v1beta1): the resource usage of pods and nodes,
// computed from what the simulated kubelets run (kubectl top).

import { t, type PackageDescriptions } from './common.ts';

const TIMESTAMP = 'When the usage was measured (the end of the window).';
const WINDOW = 'The length of time the usage was averaged over.';

export const METRICS_V1BETA1: PackageDescriptions = {
  packages: ['io.k8s.metrics.pkg.apis.metrics.v1beta1'],
  types: {
    NodeMetrics: t('The resource usage of one node.', { timestamp: TIMESTAMP, window: WINDOW, usage: 'CPU and memory in use.' }),
    PodMetrics: t('The resource usage of one pod, per container.', { timestamp: TIMESTAMP, window: WINDOW, containers: 'The usage of each container.' }),
    ContainerMetrics: t('The resource usage of one container.', { name: 'The container\'s name.', usage: 'CPU and memory in use.' }),
  },
};
