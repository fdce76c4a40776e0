// Server-side printers: for each kind, the columns the real server's printers declare (names, types, formats,
// priorities) and the cells of one row. The server always fills every column, wide ones (priority 1) included;
// kubectl shows priority-0 columns and adds the others with -o wide.

import { boolPtr, containerCells, formatLabelSelector, formatLabels, humanDuration, since } from './format.ts';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PrintedRow {
  cells: unknown[];
  conditions?: RowCondition[];
}

export interface Printer {
  columns: ColumnDefinition[];
  row(obj: Obj, now: number): PrintedRow;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- objects of every kind are read loosely: any field may be missing
type Obj = any;

function col(name: string, type: string, description: string, extra: { format?: string; priority?: number } = {}): ColumnDefinition {
  return { name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 };
}

const NAME = col('Name', 'string', 'Name of the object, unique within its namespace (or cluster-wide for cluster-scoped kinds).', { format: 'name' });
const AGE = col('Age', 'string', 'Time since the object was created (metadata.creationTimestamp).');
const CONTAINERS = col('Containers', 'string', 'Names of the containers in the pod template.', { priority: 1 });
const IMAGES = col('Images', 'string', 'Images of the containers in the pod template.', { priority: 1 });
const selectorCol = (what: string) => col('Selector', 'string', `Label selector of the ${what}.`, { priority: 1 });

/** One column and how its cell is read from an object: printers declared as a list of these. */
interface Column {
  def: ColumnDefinition;
  cell(o: Obj, now: number): unknown;
}
const column = (def: ColumnDefinition, cell: Column['cell']): Column => ({ def, cell });
/** A printer whose columns are declared with their cells, in order. */
const columnsPrinter = (...columns: Column[]): Printer => ({
  columns: columns.map((c) => c.def),
  row: (o, now) => ({ cells: columns.map((c) => c.cell(o, now)) }),
});

const age = (o: Obj, now: number) => since(o?.metadata?.creationTimestamp, now);
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);
/** An int64 column: a BigInt beyond 2^53 (util/int64-json.ts) shown with its digits. */
const int64 = (v: unknown): number | bigint => (typeof v === 'bigint' ? v : int(v));
const len = (v: unknown): number => (Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const orNone = (s: string): string => (s === '' ? '<none>' : s);

const NAME_COLUMN = column(NAME, (o) => str(o?.metadata?.name));
const AGE_COLUMN = column(AGE, age);
const templateContainers = (o: Obj) => containerCells(o?.spec?.template?.spec?.containers);
const CONTAINERS_COLUMN = column(CONTAINERS, (o) => templateContainers(o)[0]);
const IMAGES_COLUMN = column(IMAGES, (o) => templateContainers(o)[1]);

// ---------------------------------------------------------------------------------------------------- pods

const podCompleted: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const podFailed: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

function terminatedReason(t: Obj, prefix: string): string {
  if (t.reason) return prefix + t.reason;
  if (t.signal) return `${prefix}Signal:${t.signal}`;
  return `${prefix}ExitCode:${int(t.exitCode)}`;
}

/** READY, STATUS and RESTARTS of a pod, as the real printer works them out from its container statuses. */
export function podSummary(pod: Obj, now: number): { ready: string; status: string; restarts: string } {
  const spec = pod?.spec ?? {};
  const status = pod?.status ?? {};
  const total = Array.isArray(spec.containers) ? spec.containers.length : 0;
  let readyCount = 0;
  let restarts = 0;
  let lastRestart = 0;
  const noteLastTermination = (cs: Obj) => {
    const finished = cs?.lastState?.terminated?.finishedAt;
    if (typeof finished === 'string') {
      const t = Date.parse(finished);
      if (!Number.isNaN(t) && t > lastRestart) lastRestart = t;
    }
  };
  let reason: string = str(status.reason) || str(status.phase);
  let initializing = false;
  const initStatuses: Obj[] = Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : [];
  const initCount = Array.isArray(spec.initContainers) ? spec.initContainers.length : 0;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i] ?? {};
    restarts += int(cs.restartCount);
    noteLastTermination(cs);
    const st = cs.state ?? {};
    if (st.terminated && int(st.terminated.exitCode) === 0) continue;
    if (st.terminated) reason = terminatedReason(st.terminated, 'Init:');
    else if (st.waiting?.reason && st.waiting.reason !== 'PodInitializing') reason = 'Init:' + st.waiting.reason;
    else reason = `Init:${i}/${initCount}`;
    initializing = true;
    break;
  }
  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses: Obj[] = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] ?? {};
      restarts += int(cs.restartCount);
      noteLastTermination(cs);
      const st = cs.state ?? {};
      if (st.waiting?.reason) reason = st.waiting.reason;
      else if (st.terminated) reason = terminatedReason(st.terminated, '');
      else if (cs.ready && st.running) {
        hasRunning = true;
        readyCount++;
      }
    }
    // A pod whose last container finished while another still runs is Running (or NotReady), not Completed.
    if (reason === 'Completed' && hasRunning) {
      const podReady = (Array.isArray(status.conditions) ? status.conditions : []).some((c: Obj) => c?.type === 'Ready' && c?.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (pod?.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  const restartsCell = lastRestart > 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  return { ready: `${readyCount}/${total}`, status: reason, restarts: restartsCell };
}

const podPrinter: Printer = {
  columns: [
    NAME,
    col('Ready', 'string', 'Ready containers out of all containers of the pod.'),
    col('Status', 'string', 'Summary of the state of the pod and its containers.'),
    col('Restarts', 'string', 'How many times the containers of the pod restarted, and how long ago the last restart was.'),
    AGE,
    col('IP', 'string', 'IP address of the pod.', { priority: 1 }),
    col('Node', 'string', 'Node the pod is bound to.', { priority: 1 }),
    col('Nominated Node', 'string', 'Node the scheduler nominated for the pod after preempting others.', { priority: 1 }),
    col('Readiness Gates', 'string', 'Readiness gates that are true, out of all readiness gates of the pod.', { priority: 1 }),
  ],
  row(pod, now) {
    const s = podSummary(pod, now);
    const status = pod?.status ?? {};
    const ip = str(status.podIPs?.[0]?.ip) || str(status.podIP);
    const gates: Obj[] = Array.isArray(pod?.spec?.readinessGates) ? pod.spec.readinessGates : [];
    let gatesCell = '<none>';
    if (gates.length > 0) {
      const conds: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
      const trueCount = gates.filter((g) => conds.find((c) => c?.type === g?.conditionType)?.status === 'True').length;
      gatesCell = `${trueCount}/${gates.length}`;
    }
    const row: PrintedRow = {
      cells: [
        str(pod?.metadata?.name),
        s.ready,
        s.status,
        s.restarts,
        age(pod, now),
        orNone(ip),
        orNone(str(pod?.spec?.nodeName)),
        orNone(str(status.nominatedNodeName)),
        gatesCell,
      ],
    };
    if (status.phase === 'Succeeded') row.conditions = podCompleted;
    else if (status.phase === 'Failed') row.conditions = podFailed;
    return row;
  },
};

// --------------------------------------------------------------------------------------------- workloads

const desiredReplicas = (o: Obj) => (o?.spec?.replicas === undefined ? 1 : int(o.spec.replicas));
const SELECTOR_CELL = (o: Obj) => formatLabelSelector(o?.spec?.selector);

const deploymentPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Ready', 'string', 'Ready pods out of the desired number of pods.'), (d) => `${int(d?.status?.readyReplicas)}/${desiredReplicas(d)}`),
  column(col('Up-to-date', 'string', 'Pods that run the current pod template.'), (d) => int(d?.status?.updatedReplicas)),
  column(col('Available', 'string', 'Pods that have been ready for at least minReadySeconds.'), (d) => int(d?.status?.availableReplicas)),
  AGE_COLUMN,
  CONTAINERS_COLUMN,
  IMAGES_COLUMN,
  column(selectorCol('deployment'), SELECTOR_CELL),
);

const replicasPrinter = (what: string, selector: (o: Obj) => string): Printer =>
  columnsPrinter(
    NAME_COLUMN,
    column(col('Desired', 'integer', `Desired number of pods of the ${what}.`), desiredReplicas),
    column(col('Current', 'integer', `Pods the ${what} currently has.`), (o) => int(o?.status?.replicas)),
    column(col('Ready', 'integer', `Ready pods of the ${what}.`), (o) => int(o?.status?.readyReplicas)),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    column(selectorCol(what), selector),
  );

const daemonSetPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Desired', 'integer', 'Nodes that should run the daemon pod.'), (o) => int(o?.status?.desiredNumberScheduled)),
  column(col('Current', 'integer', 'Nodes that run at least one daemon pod and should.'), (o) => int(o?.status?.currentNumberScheduled)),
  column(col('Ready', 'integer', 'Nodes whose daemon pod is ready.'), (o) => int(o?.status?.numberReady)),
  column(col('Up-to-date', 'integer', 'Nodes that run the current daemon pod template.'), (o) => int(o?.status?.updatedNumberScheduled)),
  column(col('Available', 'integer', 'Nodes whose daemon pod has been ready for at least minReadySeconds.'), (o) => int(o?.status?.numberAvailable)),
  column(col('Node Selector', 'string', 'Node selector of the pod template.'), (o) => formatLabels(o?.spec?.template?.spec?.nodeSelector)),
  AGE_COLUMN,
  CONTAINERS_COLUMN,
  IMAGES_COLUMN,
  column(selectorCol('daemon set'), SELECTOR_CELL),
);

// StatefulSet (1.9 printer): desired and current pods; wide containers and images.
const statefulSetPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Desired', 'string', 'Number of desired pods.'), desiredReplicas),
  column(col('Current', 'string', 'Number of pods the set currently has.'), (o) => int(o?.status?.replicas)),
  AGE_COLUMN,
  CONTAINERS_COLUMN,
  IMAGES_COLUMN,
);

// ControllerRevision (1.9 printer): the controlling object as <kind>.<group>/<name>, and the revision number.
function revisionController(o: Obj): string {
  const ref = (Array.isArray(o?.metadata?.ownerReferences) ? o.metadata.ownerReferences : []).find((r: Obj) => r?.controller === true);
  if (!ref) return '<none>';
  const group = str(ref.apiVersion).includes('/') ? str(ref.apiVersion).split('/')[0] : '';
  return `${str(ref.kind).toLowerCase()}${group ? `.${group}` : ''}/${str(ref.name)}`;
}

const controllerRevisionPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Controller', 'string', 'The object controlling the revision (kind.group/name).'), revisionController),
  column(col('Revision', 'string', 'The revision number.'), (o) => int64(o?.revision)),
  AGE_COLUMN,
);

// HorizontalPodAutoscaler (1.9 printer): reference kind/name, targets current/target per metric (the v1 CPU
// fields or the v2beta1 metrics), min (<unset>), max, current replicas.
function hpaTargets(o: Obj): string {
  const spec = o?.spec ?? {};
  const status = o?.status ?? {};
  if (Array.isArray(spec.metrics)) {
    if (spec.metrics.length === 0) return '<none>';
    const current: Obj[] = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
    return spec.metrics
      .map((m: Obj, i: number) => {
        const cur = current[i];
        if (m?.type === 'Resource' && m.resource?.targetAverageUtilization !== undefined) {
          const c = cur?.resource?.currentAverageUtilization;
          return `${c === undefined ? '<unknown>' : `${int(c)}%`}/${int(m.resource.targetAverageUtilization)}%`;
        }
        const target = m?.resource?.targetAverageValue ?? m?.pods?.targetAverageValue ?? m?.object?.targetValue ?? '';
        const c = cur?.resource?.currentAverageValue ?? cur?.pods?.currentAverageValue ?? cur?.object?.currentValue;
        return `${c === undefined ? '<unknown>' : str(c)}/${str(target)}`;
      })
      .join(', ');
  }
  const target = spec.targetCPUUtilizationPercentage === undefined ? 80 : int(spec.targetCPUUtilizationPercentage);
  const cur = status.currentCPUUtilizationPercentage;
  return `${cur === undefined || cur === null ? '<unknown>' : `${int(cur)}%`}/${target}%`;
}

const hpaPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Reference', 'string', 'The scale target (kind/name).'), (o) => `${str(o?.spec?.scaleTargetRef?.kind)}/${str(o?.spec?.scaleTargetRef?.name)}`),
  column(col('Targets', 'string', 'Current and target value of each metric.'), hpaTargets),
  column(col('MinPods', 'string', 'Lower limit of the replica count.'), (o) =>
    o?.spec?.minReplicas === undefined || o?.spec?.minReplicas === null ? '<unset>' : int(o.spec.minReplicas),
  ),
  column(col('MaxPods', 'string', 'Upper limit of the replica count.'), (o) => int(o?.spec?.maxReplicas)),
  column(col('Replicas', 'string', 'Current number of replicas of the target.'), (o) => int(o?.status?.currentReplicas)),
  AGE_COLUMN,
);

// PodDisruptionBudget (1.9 printer): min available and max unavailable (N/A when unset), allowed disruptions.
const orNA = (v: unknown) => (v === undefined || v === null ? 'N/A' : str(v));
const pdbPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Min Available', 'string', 'Pods that must stay available (count or percentage).'), (o) => orNA(o?.spec?.minAvailable)),
  column(col('Max Unavailable', 'string', 'Pods that may be unavailable (count or percentage).'), (o) => orNA(o?.spec?.maxUnavailable)),
  column(col('Allowed Disruptions', 'integer', 'Evictions allowed now.'), (o) => int(o?.status?.disruptionsAllowed)),
  AGE_COLUMN,
);

function jobCompletions(j: Obj): string {
  const spec = j?.spec ?? {};
  const succeeded = int(j?.status?.succeeded);
  if (spec.completions !== undefined && spec.completions !== null) return `${succeeded}/${int(spec.completions)}`;
  const parallelism = int(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(j: Obj, now: number): string {
  const st = j?.status ?? {};
  const start = typeof st.startTime === 'string' ? Date.parse(st.startTime) : NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof st.completionTime === 'string' ? Date.parse(st.completionTime) : NaN;
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

const jobPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Completions', 'string', 'Successful completions out of the desired completions.'), jobCompletions),
  column(col('Duration', 'string', 'Time the job took to complete, or has been running.'), jobDuration),
  AGE_COLUMN,
  CONTAINERS_COLUMN,
  IMAGES_COLUMN,
  column(selectorCol('job'), SELECTOR_CELL),
);

const jobTemplate = (c: Obj) => c?.spec?.jobTemplate?.spec ?? {};
const cronJobPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Schedule', 'string', 'Cron schedule of the job.'), (c) => str(c?.spec?.schedule)),
  column(col('Suspend', 'boolean', 'Whether later runs are suspended.'), (c) => boolPtr(c?.spec?.suspend)),
  column(col('Active', 'integer', 'Jobs of this cron job that are running.'), (c) => len(c?.status?.active)),
  column(col('Last Schedule', 'string', 'Time since a job was last scheduled.'), (c, now) =>
    c?.status?.lastScheduleTime ? since(c.status.lastScheduleTime, now) : '<none>',
  ),
  AGE_COLUMN,
  column(CONTAINERS, (c) => containerCells(jobTemplate(c).template?.spec?.containers)[0]),
  column(IMAGES, (c) => containerCells(jobTemplate(c).template?.spec?.containers)[1]),
  column(selectorCol('job template'), (c) => formatLabelSelector(jobTemplate(c).selector)),
);

// ------------------------------------------------------------------------------------------- networking

function serviceExternalIp(svc: Obj): string {
  const spec = svc?.spec ?? {};
  const externalIPs: string[] = Array.isArray(spec.externalIPs) ? spec.externalIPs : [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(svc?.status?.loadBalancer);
      if (externalIPs.length) return [...(lb ? lb.split(',') : []), ...externalIPs].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
  }
  return '<unknown>';
}

function loadBalancerAddresses(lb: Obj): string {
  const set = new Set<string>();
  for (const i of Array.isArray(lb?.ingress) ? lb.ingress : []) {
    if (i?.ip) set.add(i.ip);
    else if (i?.hostname) set.add(i.hostname);
  }
  return [...set].sort().join(',');
}

function servicePorts(ports: unknown): string {
  const list: Obj[] = Array.isArray(ports) ? ports : [];
  return list.map((p) => (int(p?.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${str(p.protocol)}` : `${int(p?.port)}/${str(p?.protocol)}`)).join(',');
}

const servicePrinter: Printer = {
  columns: [
    NAME,
    col('Type', 'string', 'How the service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    col('Cluster-IP', 'string', 'Virtual IP address of the service inside the cluster.'),
    col('External-IP', 'string', 'Addresses the service is reachable at from outside the cluster.'),
    col('Port(s)', 'string', 'Ports the service exposes.'),
    AGE,
    col('Selector', 'string', 'Labels of the pods the service sends traffic to.', { priority: 1 }),
  ],
  row(s, now) {
    const spec = s?.spec ?? {};
    const clusterIp = str(spec.clusterIPs?.[0]) || str(spec.clusterIP);
    return {
      cells: [
        str(s?.metadata?.name),
        str(spec.type),
        orNone(clusterIp),
        serviceExternalIp(s),
        orNone(servicePorts(spec.ports)),
        age(s, now),
        formatLabels(spec.selector),
      ],
    };
  },
};

/** Endpoint addresses as ip:port (at most three, then "+ N more..."), or <none>. */
export function formatEndpoints(ep: Obj): string {
  const subsets: Obj[] = Array.isArray(ep?.subsets) ? ep.subsets : [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  const add = (s: string) => {
    if (list.length < max) list.push(s);
    count++;
  };
  for (const ss of subsets) {
    const addresses: Obj[] = Array.isArray(ss?.addresses) ? ss.addresses : [];
    const ports: Obj[] = Array.isArray(ss?.ports) ? ss.ports : [];
    if (ports.length === 0) for (const a of addresses) add(str(a?.ip));
    else for (const p of ports) for (const a of addresses) add(hostPort(str(a?.ip), int(p?.port)));
  }
  const joined = list.join(',');
  return count > max ? `${joined} + ${count - max} more...` : joined;
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

const endpointsPrinter: Printer = {
  columns: [NAME, col('Endpoints', 'string', 'Addresses and ports of the endpoints.'), AGE],
  row: (e, now) => ({ cells: [str(e?.metadata?.name), formatEndpoints(e), age(e, now)] }),
};

const ingressPrinter: Printer = {
  columns: [
    NAME,
    col('Class', 'string', 'Ingress class that handles the ingress.'),
    col('Hosts', 'string', 'Hosts the rules of the ingress match.'),
    col('Address', 'string', 'Addresses of the load balancer that serves the ingress.'),
    col('Ports', 'string', 'Ports the ingress serves (443 too when TLS is configured).'),
    AGE,
  ],
  row(i, now) {
    const spec = i?.spec ?? {};
    const rules: Obj[] = Array.isArray(spec.rules) ? spec.rules : [];
    const max = 3;
    const hosts: string[] = [];
    let more = false;
    for (const r of rules) {
      if (hosts.length === max) more = true;
      if (!more && str(r?.host) !== '') hosts.push(str(r.host));
    }
    let hostsCell = hosts.length === 0 ? '*' : hosts.join(',');
    if (hosts.length > 0 && more) hostsCell += ` + ${rules.length - max} more...`;
    const ports = Array.isArray(spec.tls) && spec.tls.length > 0 ? '80, 443' : '80';
    return {
      cells: [
        str(i?.metadata?.name),
        spec.ingressClassName ? str(spec.ingressClassName) : '<none>',
        hostsCell,
        loadBalancerAddresses(i?.status?.loadBalancer),
        ports,
        age(i, now),
      ],
    };
  },
};

// ------------------------------------------------------------------------------------------------ core

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((node?.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return [...roles].sort().join(',') || '<none>';
}

function nodeAddress(node: Obj, type: string): string {
  const a = (Array.isArray(node?.status?.addresses) ? node.status.addresses : []).find((x: Obj) => x?.type === type);
  return a ? str(a.address) : '<none>';
}

const nodePrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'string', 'Whether the node is ready, and whether scheduling on it is disabled.'),
    col('Roles', 'string', 'Roles of the node, from its node-role labels.'),
    AGE,
    col('Version', 'string', 'Version of the kubelet on the node.'),
    col('Internal-IP', 'string', 'Internal address of the node.', { priority: 1 }),
    col('External-IP', 'string', 'External address of the node.', { priority: 1 }),
    col('OS-Image', 'string', 'Operating system image of the node.', { priority: 1 }),
    col('Kernel-Version', 'string', 'Kernel version of the node.', { priority: 1 }),
    col('Container-Runtime', 'string', 'Container runtime of the node and its version.', { priority: 1 }),
  ],
  row(n, now) {
    const ready = (Array.isArray(n?.status?.conditions) ? n.status.conditions : []).find((c: Obj) => c?.type === 'Ready');
    const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
    if (n?.spec?.unschedulable) status.push('SchedulingDisabled');
    const info = n?.status?.nodeInfo ?? {};
    const orUnknown = (v: unknown) => str(v) || '<unknown>';
    return {
      cells: [
        str(n?.metadata?.name),
        status.join(','),
        nodeRoles(n),
        age(n, now),
        str(info.kubeletVersion),
        nodeAddress(n, 'InternalIP'),
        nodeAddress(n, 'ExternalIP'),
        orUnknown(info.osImage),
        orUnknown(info.kernelVersion),
        orUnknown(info.containerRuntimeVersion),
      ],
    };
  },
};

const namespacePrinter: Printer = {
  columns: [NAME, col('Status', 'string', 'Phase of the namespace: Active or Terminating.'), AGE],
  row: (n, now) => ({ cells: [str(n?.metadata?.name), str(n?.status?.phase), age(n, now)] }),
};

const configMapPrinter: Printer = {
  columns: [NAME, col('Data', 'string', 'Number of keys in data and binaryData.'), AGE],
  row: (c, now) => ({ cells: [str(c?.metadata?.name), len(c?.data) + len(c?.binaryData), age(c, now)] }),
};

const secretPrinter: Printer = {
  columns: [NAME, col('Type', 'string', 'Type of the secret.'), col('Data', 'string', 'Number of keys in data.'), AGE],
  row: (s, now) => ({ cells: [str(s?.metadata?.name), str(s?.type), len(s?.data), age(s, now)] }),
};

const serviceAccountPrinter: Printer = {
  columns: [NAME, col('Secrets', 'string', 'Number of secrets the service account references.'), AGE],
  row: (s, now) => ({ cells: [str(s?.metadata?.name), len(s?.secrets), age(s, now)] }),
};

// RoleBinding and ClusterRoleBinding (1.9 printers): the role and the subjects by kind are wide columns.
const subjectsOf = (b: Obj, kind: string): string =>
  (Array.isArray(b?.subjects) ? b.subjects : [])
    .filter((s: Obj) => s?.kind === kind)
    .map((s: Obj) => (NAMESPACED_SUBJECTS.has(kind) ? `${str(s?.namespace)}/${str(s?.name)}` : str(s?.name)))
    .join(', ');

/** Subject kinds printed as namespace/name (a ServiceAccount lives in a namespace; users and groups do not). */
const NAMESPACED_SUBJECTS = new Set(['ServiceAccount']);

const roleBindingPrinter: Printer = {
  columns: [
    NAME,
    AGE,
    col('Role', 'string', 'Role referenced by this binding (kind/name).', { priority: 1 }),
    col('Users', 'string', 'Users in the binding.', { priority: 1 }),
    col('Groups', 'string', 'Groups in the binding.', { priority: 1 }),
    col('ServiceAccounts', 'string', 'Service accounts in the binding (namespace/name).', { priority: 1 }),
  ],
  row: (b, now) => ({
    cells: [
      str(b?.metadata?.name),
      age(b, now),
      `${str(b?.roleRef?.kind)}/${str(b?.roleRef?.name)}`,
      subjectsOf(b, 'User'),
      subjectsOf(b, 'Group'),
      subjectsOf(b, 'ServiceAccount'),
    ],
  }),
};

// CertificateSigningRequest (1.9 printer): the requester and Approved|Denied|Pending, then ",Failed" (newer
// signers' condition) and ",Issued" once a certificate is there.
function csrCondition(o: Obj): string {
  const conds: Obj[] = Array.isArray(o?.status?.conditions) ? o.status.conditions : [];
  const has = (t: string) => conds.some((c) => c?.type === t && (c?.status ?? 'True') === 'True');
  let s = has('Denied') ? 'Denied' : has('Approved') ? 'Approved' : 'Pending';
  if (has('Failed')) s += ',Failed';
  if (o?.status?.certificate) s += ',Issued';
  return s;
}

const csrPrinter: Printer = {
  columns: [
    NAME,
    AGE,
    col('Requestor', 'string', 'Name of the user who made the request.'),
    col('Condition', 'string', 'State of the request (approval, issuance).'),
  ],
  row: (o, now) => ({ cells: [str(o?.metadata?.name), age(o, now), str(o?.spec?.username), csrCondition(o)] }),
};

function eventSource(e: Obj): string {
  const component = str(e?.source?.component) || str(e?.reportingComponent);
  const host = str(e?.source?.host) || str(e?.reportingInstance);
  return host ? `${component}, ${host}` : component;
}

const eventPrinter: Printer = {
  columns: [
    col('Last Seen', 'string', 'Time since the event was last seen.'),
    col('Type', 'string', 'Type of the event: Normal or Warning.'),
    col('Reason', 'string', 'Short reason for the event.'),
    col('Object', 'string', 'Object the event is about.'),
    col('Subobject', 'string', 'Part of the object the event is about (a container, for example).', { priority: 1 }),
    col('Source', 'string', 'Component (and host) that reported the event.', { priority: 1 }),
    col('Message', 'string', 'Human-readable description of the event.'),
    col('First Seen', 'string', 'Time since the event was first seen.', { priority: 1 }),
    col('Count', 'string', 'How many times the event was seen.', { priority: 1 }),
    col('Name', 'string', 'Name of the event object.', { format: 'name', priority: 1 }),
  ],
  row(e, now) {
    const first = e?.firstTimestamp ? since(e.firstTimestamp, now) : since(e?.eventTime, now);
    let last = e?.lastTimestamp ? since(e.lastTimestamp, now) : first;
    let count = int(e?.count);
    if (e?.series) {
      last = since(e.series.lastObservedTime, now);
      count = int(e.series.count);
    } else if (count === 0) count = 1;
    const io = e?.involvedObject ?? {};
    const kind = str(io.kind).toLowerCase();
    const target = io.name ? `${kind}/${str(io.name)}` : kind;
    return {
      cells: [last, str(e?.type), str(e?.reason), target, str(io.fieldPath), eventSource(e), str(e?.message).trim(), first, count, str(e?.metadata?.name)],
    };
  },
};

// Volumes (1.9 printers): access modes as RWO/ROX/RWX in that order; a claim's capacity and modes only once it
// names its volume; a StorageClass marked default (either annotation) prints "(default)" after its name.
export function accessModesText(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  return [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX']].filter(([m]) => list.includes(m)).map(([, a]) => a).join(',');
}

const storageClassOf = (o: Obj): string => str(o?.spec?.storageClassName ?? o?.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class']);

const persistentVolumePrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Capacity', 'string', 'The volume\'s storage capacity.'), (o) => str(o?.spec?.capacity?.storage)),
  column(col('Access Modes', 'string', 'Ways the volume can be mounted.'), (o) => accessModesText(o?.spec?.accessModes)),
  column(col('Reclaim Policy', 'string', 'What happens to the volume when released from its claim.'), (o) => str(o?.spec?.persistentVolumeReclaimPolicy)),
  column(col('Status', 'string', 'Phase of the volume.'), (o) => str(o?.status?.phase)),
  column(col('Claim', 'string', 'The claim bound to the volume (namespace/name).'), (o) => {
    const ref = o?.spec?.claimRef;
    return ref ? `${str(ref.namespace)}/${str(ref.name)}` : '';
  }),
  column(col('StorageClass', 'string', 'StorageClass of the volume.'), storageClassOf),
  column(col('Reason', 'string', 'Reason of a failure.'), (o) => str(o?.status?.reason)),
  AGE_COLUMN,
);

const claimBound = (o: Obj) => str(o?.spec?.volumeName) !== '';
const persistentVolumeClaimPrinter = columnsPrinter(
  NAME_COLUMN,
  // A claim held by its finalizer shows Terminating, as kubectl users know it.
  column(col('Status', 'string', 'Phase of the claim.'), (o) => (o?.metadata?.deletionTimestamp ? 'Terminating' : str(o?.status?.phase))),
  column(col('Volume', 'string', 'The volume bound to the claim.'), (o) => str(o?.spec?.volumeName)),
  column(col('Capacity', 'string', 'Storage capacity of the bound volume.'), (o) => (claimBound(o) ? str(o?.status?.capacity?.storage) : '')),
  column(col('Access Modes', 'string', 'Ways the bound volume can be mounted.'), (o) => (claimBound(o) ? accessModesText(o?.status?.accessModes) : '')),
  column(col('StorageClass', 'string', 'StorageClass of the claim.'), storageClassOf),
  AGE_COLUMN,
);

const isDefaultClass = (o: Obj) =>
  ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'].some((k) => o?.metadata?.annotations?.[k] === 'true');

const storageClassPrinter: Printer = {
  columns: [NAME, col('Provisioner', 'string', 'The volume plugin that provisions volumes of the class.'), AGE],
  row: (o, now) => ({ cells: [`${str(o?.metadata?.name)}${isDefaultClass(o) ? ' (default)' : ''}`, str(o?.provisioner), age(o, now)] }),
};

const volumeAttachmentPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Attacher', 'string', 'The volume driver that attaches the volume.'), (o) => str(o?.spec?.attacher)),
  column(col('PV', 'string', 'The PersistentVolume attached.'), (o) => str(o?.spec?.source?.persistentVolumeName)),
  column(col('Node', 'string', 'The node the volume is attached to.'), (o) => str(o?.spec?.nodeName)),
  column(col('Attached', 'boolean', 'Whether the volume is attached.'), (o) => o?.status?.attached === true),
  AGE_COLUMN,
);

// NetworkPolicy (1.9 printer): the pods it selects.
const networkPolicyPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Pod-Selector', 'string', 'Label selector of the pods the policy applies to.'), (o) => formatLabelSelector(o?.spec?.podSelector)),
  AGE_COLUMN,
);

// PodTemplate (1.9 printer): the template's containers, images and pod labels.
const podTemplatePrinter = columnsPrinter(
  column(col('Template', 'string', 'Name of the pod template.', { format: 'name' }), (o) => str(o?.metadata?.name)),
  column(col('Containers', 'string', 'Names of the containers in the template.'), (o) => containerCells(o?.template?.spec?.containers)[0]),
  column(col('Images', 'string', 'Images of the containers in the template.'), (o) => containerCells(o?.template?.spec?.containers)[1]),
  column(col('Pod Labels', 'string', 'Labels of the pods made from the template.'), (o) => formatLabels(o?.template?.metadata?.labels)),
);

// ComponentStatus (1.9 printer): the Healthy condition's status, message and error.
const healthy = (o: Obj): Obj => (Array.isArray(o?.conditions) ? o.conditions.find((c: Obj) => c?.type === 'Healthy') : undefined) ?? {};
const componentStatusPrinter = columnsPrinter(
  NAME_COLUMN,
  column(col('Status', 'string', 'Status of the component conditions.'), (o) => (healthy(o).status === 'True' ? 'Healthy' : healthy(o).status ? 'Unhealthy' : 'Unknown')),
  column(col('Message', 'string', 'Message of the component conditions.'), (o) => str(healthy(o).message)),
  column(col('Error', 'string', 'Error of the component conditions.'), (o) => str(healthy(o).error)),
);

/** The table every kind without its own printer gets: the name and the creation time. */
export const defaultPrinter: Printer = {
  columns: [NAME, col('Created At', 'date', 'Time the object was created (metadata.creationTimestamp).')],
  row(o) {
    const ts = o?.metadata?.creationTimestamp;
    const t = typeof ts === 'string' ? Date.parse(ts) : NaN;
    // An unset creation time prints as Go's zero time.
    const created = Number.isNaN(t) ? '0001-01-01T00:00:00Z' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { cells: [str(o?.metadata?.name), created] };
  },
};

/** Printers by kind (the same for every group that serves a kind: apps/v1 and extensions/v1beta1). */
export const PRINTERS: Readonly<Record<string, Printer>> = {
  Pod: podPrinter,
  Deployment: deploymentPrinter,
  ReplicaSet: replicasPrinter('replica set', (o) => formatLabelSelector(o?.spec?.selector)),
  ReplicationController: replicasPrinter('replication controller', (o) => formatLabels(o?.spec?.selector)),
  DaemonSet: daemonSetPrinter,
  StatefulSet: statefulSetPrinter,
  ControllerRevision: controllerRevisionPrinter,
  HorizontalPodAutoscaler: hpaPrinter,
  PodDisruptionBudget: pdbPrinter,
  Job: jobPrinter,
  CronJob: cronJobPrinter,
  Service: servicePrinter,
  Endpoints: endpointsPrinter,
  Ingress: ingressPrinter,
  Node: nodePrinter,
  Namespace: namespacePrinter,
  ConfigMap: configMapPrinter,
  Secret: secretPrinter,
  ServiceAccount: serviceAccountPrinter,
  Event: eventPrinter,
  RoleBinding: roleBindingPrinter,
  CertificateSigningRequest: csrPrinter,
  ClusterRoleBinding: roleBindingPrinter,
  PersistentVolume: persistentVolumePrinter,
  PersistentVolumeClaim: persistentVolumeClaimPrinter,
  StorageClass: storageClassPrinter,
  VolumeAttachment: volumeAttachmentPrinter,
  NetworkPolicy: networkPolicyPrinter,
  PodTemplate: podTemplatePrinter,
  ComponentStatus: componentStatusPrinter,
};

export function printerFor(kind: string): Printer {
  return PRINTERS[kind] ?? defaultPrinter;
}
