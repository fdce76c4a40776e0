// A controller daemon that breaks chosen rows, for the harness tests that show each daemon-controllers check
// failing on a daemon that gets its row wrong: this project's daemon (simulator/controllers/index.ts, same
// command line) with its API client patched to distort what some loops write or read, or with its key files
// swapped for others. BROKEN_DAEMON names the breaks, comma-separated:
//   sa-key          signs service-account tokens with a key of its own instead of --service-account-private-key-file
//   jws             writes cluster-info signatures with a wrong token secret (the signature no longer verifies)
//   tokencleaner    never deletes bootstrap token Secrets
//   csr-approve     never approves (its /approval writes are dropped)
//   signing-ca      signs certificates with a CA of its own instead of --cluster-signing-cert-file / -key-file
//   aggregation     never updates ClusterRoles
//   sts-order       sees every pod as Running and Ready (so an OrderedReady set no longer waits)
//   pdb-status      writes PodDisruptionBudget status with 5 disruptions allowed
//   hpa-status      never writes HorizontalPodAutoscaler status
//   quota-status    never writes ResourceQuota status
//   recycle-deadline  makes recycler pods with activeDeadlineSeconds one more than computed
//   pvc-protection  never puts the kubernetes.io/pvc-protection finalizer on claims
//   eviction-rate   evicts at 1000 nodes per second whatever --node-eviction-rate and --secondary-node-eviction-rate say
//   zone-disruption never judges a zone disrupted (--unhealthy-zone-threshold 1.1 whatever was given)
//   monitor-period  looks at node heartbeats every 5 s (the default) whatever --node-monitor-period says
//   service-syncs   provisions one load balancer at a time (the default) whatever --concurrent-service-syncs says
//   service-sync-period  resyncs Services every 5 min (the default) whatever --service-sync-period says
// Run as: BROKEN_DAEMON=jws,tokencleaner node --import tsx suites/harness/testdata/broken-daemon.ts [daemon options]

import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../../simulator/client/api-client.ts';
import type { KubeObject } from '../../../simulator/api/meta.ts';
import { writeDaemonPki } from '../../daemon/pki.ts';

const breaks = new Set((process.env.BROKEN_DAEMON ?? '').split(',').map((s) => s.trim()).filter(Boolean));
type Obj = Record<string, unknown>;

/** A write the daemon makes, distorted; `drop` answers as if it had been done, without sending it. */
function distortWrite(method: string, path: string, body: unknown): { body?: unknown; drop?: boolean } {
  if (method === 'GET') return {};
  if (breaks.has('tokencleaner') && method === 'DELETE' && /\/namespaces\/kube-system\/secrets\/bootstrap-token-/.test(path)) return { drop: true };
  if (breaks.has('csr-approve') && /\/certificatesigningrequests\/[^/]+\/approval$/.test(path)) return { drop: true };
  if (breaks.has('aggregation') && /\/clusterroles\/[^/]+$/.test(path) && method !== 'DELETE') return { drop: true };
  if (breaks.has('quota-status') && /\/resourcequotas\/[^/]+\/status$/.test(path)) return { drop: true };
  if (breaks.has('hpa-status') && /\/horizontalpodautoscalers\/[^/]+\/status$/.test(path)) return { drop: true };
  if (breaks.has('recycle-deadline') && method === 'POST' && /\/pods$/.test(path) && body && typeof body === 'object') {
    const b = structuredClone(body) as Obj & { metadata?: { name?: string }; spec?: Obj };
    if (b.metadata?.name?.startsWith('recycler-for-') && typeof b.spec?.activeDeadlineSeconds === 'number') b.spec.activeDeadlineSeconds += 1;
    return { body: b };
  }
  if (breaks.has('pvc-protection') && method === 'PUT' && /\/persistentvolumeclaims\/[^/]+$/.test(path) && body && typeof body === 'object') {
    const b = structuredClone(body) as Obj & { metadata?: { finalizers?: string[] } };
    if (b.metadata?.finalizers) b.metadata.finalizers = b.metadata.finalizers.filter((f) => f !== 'kubernetes.io/pvc-protection');
    return { body: b };
  }
  if (breaks.has('pdb-status') && /\/poddisruptionbudgets\/[^/]+\/status$/.test(path) && body && typeof body === 'object') {
    const b = structuredClone(body) as Obj & { status?: Obj };
    if (b.status) b.status.disruptionsAllowed = 5;
    return { body: b };
  }
  if (breaks.has('jws') && /\/namespaces\/kube-public\/configmaps\/cluster-info$/.test(path) && body && typeof body === 'object') {
    const b = structuredClone(body) as Obj & { data?: Record<string, string> };
    for (const k of Object.keys(b.data ?? {})) {
      if (!k.startsWith('jws-kubeconfig-')) continue;
      const [h] = b.data![k].split('.');
      b.data![k] = `${h}..${createHmac('sha256', 'not-the-token-secret').update(h).digest('base64url')}`;
    }
    return { body: b };
  }
  return {};
}

/** What the daemon reads, distorted. */
function distortRead(path: string, obj: unknown): unknown {
  if (!breaks.has('sts-order') || !obj || typeof obj !== 'object') return obj;
  const ready = (o: Obj) => {
    if ((o as { kind?: string }).kind !== 'Pod' && !/\/pods/.test(path)) return o;
    const c = structuredClone(o) as KubeObject & { status?: Obj };
    c.status = { ...(c.status ?? {}), phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    return c;
  };
  const list = obj as { items?: Obj[] };
  if (Array.isArray(list.items) && /\/pods/.test(path)) return { ...list, items: list.items.map(ready) };
  return (obj as { kind?: string }).kind === 'Pod' ? ready(obj as Obj) : obj;
}

const request = ApiClient.prototype.request;
ApiClient.prototype.request = async function (this: ApiClient, method, path, ro = {}) {
  const w = distortWrite(method, path, ro.body);
  if (w.drop) return { status: 200, headers: {}, body: ro.body as never };
  const res = await request.call(this, method, path, w.body === undefined ? ro : { ...ro, body: w.body });
  return method === 'GET' ? { ...res, body: distortRead(path, res.body) as never } : res;
} as typeof request;

const watch = ApiClient.prototype.watch;
ApiClient.prototype.watch = async function* (this: ApiClient, path, query, signal) {
  for await (const ev of watch.call(this, path, query, signal)) {
    const e = ev as { type: string; object: unknown };
    yield (e.object ? { ...e, object: distortRead(path, e.object) } : ev) as typeof ev;
  }
} as typeof watch;

// Key files swapped for ones the check does not know.
if (breaks.has('sa-key') || breaks.has('signing-ca')) {
  const own = await writeDaemonPki(mkdtempSync(join(tmpdir(), 'broken-daemon-')), 'not-the-suites-ca');
  process.argv = process.argv.map((a) => {
    if (breaks.has('sa-key') && a.startsWith('--service-account-private-key-file=')) return `--service-account-private-key-file=${own.serviceAccountKeyFile}`;
    if (breaks.has('signing-ca') && a.startsWith('--cluster-signing-cert-file=')) return `--cluster-signing-cert-file=${own.caCertFile}`;
    if (breaks.has('signing-ca') && a.startsWith('--cluster-signing-key-file=')) return `--cluster-signing-key-file=${own.caKeyFile}`;
    return a;
  });
}

// Eviction options replaced by values of its own (the daemon reads them as given).
const OPTION_BREAKS: Record<string, [RegExp, string]> = {
  'monitor-period': [/^--node-monitor-period=/, '--node-monitor-period=5s'],
  'service-syncs': [/^--concurrent-service-syncs=/, '--concurrent-service-syncs=1'],
  'service-sync-period': [/^--service-sync-period=/, '--service-sync-period=5m'],
};
for (const [name, [option, value]] of Object.entries(OPTION_BREAKS)) if (breaks.has(name)) process.argv = process.argv.map((a) => (option.test(a) ? value : a));
if (breaks.has('eviction-rate') || breaks.has('zone-disruption')) {
  process.argv = process.argv.map((a) => {
    if (breaks.has('eviction-rate') && /^--(secondary-)?node-eviction-rate=/.test(a)) return `${a.split('=')[0]}=1000`;
    if (breaks.has('zone-disruption') && a.startsWith('--unhealthy-zone-threshold=')) return '--unhealthy-zone-threshold=1.1';
    return a;
  });
  if (breaks.has('zone-disruption') && !process.argv.some((a) => a.startsWith('--unhealthy-zone-threshold='))) process.argv.push('--unhealthy-zone-threshold=1.1');
}

await import('../../../simulator/controllers/index.ts');
