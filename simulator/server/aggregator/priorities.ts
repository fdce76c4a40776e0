// The priorities 1.9's kube-apiserver gives the APIServices it registers for its own group versions (the
// aggregator orders /apis by groupPriorityMinimum, highest first, and a group's versions by versionPriority).
// Group versions the simulator serves beyond 1.9 get their group's priority and a GA version's; metrics.k8s.io
// gets what metrics-server's own APIService asks for (100, 100).

export interface ApiServicePriority {
  groupPriorityMinimum: number;
  versionPriority: number;
}

const TABLE: Record<string, ApiServicePriority> = {
  'v1': { groupPriorityMinimum: 18000, versionPriority: 1 },
  'extensions/v1beta1': { groupPriorityMinimum: 17900, versionPriority: 1 },
  'apps/v1beta1': { groupPriorityMinimum: 17800, versionPriority: 1 },
  'apps/v1beta2': { groupPriorityMinimum: 17800, versionPriority: 9 },
  'apps/v1': { groupPriorityMinimum: 17800, versionPriority: 15 },
  'events.k8s.io/v1beta1': { groupPriorityMinimum: 17750, versionPriority: 5 },
  'authentication.k8s.io/v1': { groupPriorityMinimum: 17700, versionPriority: 15 },
  'authentication.k8s.io/v1beta1': { groupPriorityMinimum: 17700, versionPriority: 9 },
  'authorization.k8s.io/v1': { groupPriorityMinimum: 17600, versionPriority: 15 },
  'authorization.k8s.io/v1beta1': { groupPriorityMinimum: 17600, versionPriority: 9 },
  'autoscaling/v1': { groupPriorityMinimum: 17500, versionPriority: 15 },
  'autoscaling/v2beta1': { groupPriorityMinimum: 17500, versionPriority: 9 },
  'batch/v1': { groupPriorityMinimum: 17400, versionPriority: 15 },
  'batch/v1beta1': { groupPriorityMinimum: 17400, versionPriority: 9 },
  'batch/v2alpha1': { groupPriorityMinimum: 17400, versionPriority: 9 },
  'certificates.k8s.io/v1beta1': { groupPriorityMinimum: 17300, versionPriority: 9 },
  'networking.k8s.io/v1': { groupPriorityMinimum: 17200, versionPriority: 15 },
  'policy/v1beta1': { groupPriorityMinimum: 17100, versionPriority: 9 },
  'rbac.authorization.k8s.io/v1': { groupPriorityMinimum: 17000, versionPriority: 15 },
  'rbac.authorization.k8s.io/v1beta1': { groupPriorityMinimum: 17000, versionPriority: 12 },
  'rbac.authorization.k8s.io/v1alpha1': { groupPriorityMinimum: 17000, versionPriority: 9 },
  'settings.k8s.io/v1alpha1': { groupPriorityMinimum: 16900, versionPriority: 9 },
  'storage.k8s.io/v1': { groupPriorityMinimum: 16800, versionPriority: 15 },
  'storage.k8s.io/v1beta1': { groupPriorityMinimum: 16800, versionPriority: 9 },
  'storage.k8s.io/v1alpha1': { groupPriorityMinimum: 16800, versionPriority: 1 },
  'apiextensions.k8s.io/v1beta1': { groupPriorityMinimum: 16700, versionPriority: 9 },
  'admissionregistration.k8s.io/v1beta1': { groupPriorityMinimum: 16700, versionPriority: 12 },
  'admissionregistration.k8s.io/v1alpha1': { groupPriorityMinimum: 16700, versionPriority: 9 },
  'scheduling.k8s.io/v1alpha1': { groupPriorityMinimum: 16600, versionPriority: 9 },
  'metrics.k8s.io/v1beta1': { groupPriorityMinimum: 100, versionPriority: 100 },
};

/** The priorities of a group version served by this server (1.9's table; its group's and 15 beyond it). */
export function localPriority(group: string, version: string): ApiServicePriority {
  const exact = TABLE[group ? `${group}/${version}` : version];
  if (exact) return exact;
  const sibling = Object.entries(TABLE).find(([gv]) => gv.startsWith(`${group}/`));
  // Custom resources' groups: 1.9's CRD registration gives 1000 and 100.
  return sibling ? { groupPriorityMinimum: sibling[1].groupPriorityMinimum, versionPriority: 15 } : { groupPriorityMinimum: 1000, versionPriority: 100 };
}
