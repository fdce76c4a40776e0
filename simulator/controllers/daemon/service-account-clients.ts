// --use-service-account-credentials: each controller talks to the API as its own service account in
// kube-system (the real SAControllerClientBuilder), so that RBAC's system:controller:<account> roles decide
// what each may do. The daemon's own client (its --xconfig identity, system:kube-controller-manager) creates
// the account when missing and waits for the token Secret the serviceaccount-token controller makes for it;
// the controller then gets a client with that bearer token (same server, CA, limits). The shared informers
// keep using the daemon's own client, as in the real daemon. Without the option, each controller still gets a
// client of its own (ownClient: the daemon's credentials, its own rate limit), as the real simple client builder.

import { ApiClient, type ApiClientOptions } from '../../client/api-client.ts';
import type { ClientConfig } from '../../client/kubeconfig.ts';
import type { KubeObject } from '../../api/meta.ts';
import { RESOURCE } from '../../client/resource-paths.ts';

/** The real 1.9 service-account name of each controller (cmd/kube-controller-manager). */
export const CONTROLLER_SERVICE_ACCOUNTS: Record<string, string> = {
  attachdetach: 'attachdetach-controller',
  bootstrapsigner: 'bootstrap-signer',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  cronjob: 'cronjob-controller',
  csrapproving: 'certificate-controller',
  csrcleaner: 'certificate-controller',
  csrsigning: 'certificate-controller',
  daemonset: 'daemon-set-controller',
  deployment: 'deployment-controller',
  disruption: 'disruption-controller',
  endpoint: 'endpoint-controller',
  garbagecollector: 'generic-garbage-collector',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler',
  job: 'job-controller',
  namespace: 'namespace-controller',
  node: 'node-controller',
  'persistentvolume-binder': 'persistent-volume-binder',
  podgc: 'pod-garbage-collector',
  'pvc-protection': 'pvc-protection-controller',
  replicaset: 'replicaset-controller',
  replicationcontroller: 'replication-controller',
  resourcequota: 'resourcequota-controller',
  route: 'route-controller',
  service: 'service-controller',
  serviceaccount: 'service-account-controller',
  statefulset: 'statefulset-controller',
  tokencleaner: 'token-cleaner',
  ttl: 'ttl-controller',
};

const NS = 'kube-system';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

/**
 * The client a controller runs with when it uses the daemon's own credentials: the daemon's, with a rate limit
 * of its own and the controller's name added to the user agent (the real client builder's
 * `<agent>/<controller client name>`). It is closed when the daemon stops.
 */
export function ownClient(root: ApiClient, controller: string, signal: AbortSignal): ApiClient {
  const own = root.forComponent(`${root.userAgent}/${CONTROLLER_SERVICE_ACCOUNTS[controller] ?? `${controller}-controller`}`);
  signal.addEventListener('abort', () => void own.close(), { once: true });
  return own;
}

/**
 * The client a controller runs with: its service account's token client, or for controllers the real daemon runs
 * under its own identity (serviceaccount-token) the daemon's credentials with a rate limit of their own
 * (ownClient). Undefined when the signal aborts first.
 */
export async function serviceAccountClient(
  root: ApiClient,
  rootConfig: ClientConfig,
  clientOptions: ApiClientOptions,
  controller: string,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<ApiClient | undefined> {
  const account = CONTROLLER_SERVICE_ACCOUNTS[controller];
  if (!account) return ownClient(root, controller, signal);
  const saPath = RESOURCE.serviceAccounts.object(NS, account);
  let announced = false;
  for (let delay = 100; !signal.aborted; delay = Math.min(delay * 2, 2_000)) {
    try {
      let sa: KubeObject | undefined;
      try {
        sa = await root.get(saPath, undefined, signal);
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
        sa = await root.create(RESOURCE.serviceAccounts.collection(NS), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace: NS } } as KubeObject, signal);
      }
      const secrets = await root.list(RESOURCE.secrets.collection(NS), undefined, signal);
      const token = secrets.items.find((s) => {
        const a = s.metadata.annotations ?? {};
        return (s as { type?: string }).type === 'kubernetes.io/service-account-token' && a['kubernetes.io/service-account.name'] === account && a['kubernetes.io/service-account.uid'] === sa!.metadata.uid;
      });
      const data = (token as { data?: Record<string, string> } | undefined)?.data?.token;
      if (data) {
        log(`${controller}: using service account ${NS}/${account}`);
        // The user agent names the account too, as the real client builder's does (seen in the server's request log).
        const userAgent = `${clientOptions.userAgent ?? 'controller-daemon/v1.9.0'}/system:serviceaccount:${NS}:${account}`;
        const own = await ApiClient.create({ server: rootConfig.server, ca: rootConfig.ca, insecureSkipTLSVerify: rootConfig.insecureSkipTLSVerify, token: Buffer.from(data, 'base64').toString('utf8') }, { ...clientOptions, userAgent });
        // Its connections go when the daemon stops.
        signal.addEventListener('abort', () => void own.close(), { once: true });
        return own;
      }
      if (!announced) log(`${controller}: waiting for the token of service account ${NS}/${account} (made by the serviceaccount-token controller)`);
      announced = true;
    } catch (err) {
      if (signal.aborted) return undefined;
      log(`${controller}: cannot get the credentials of service account ${NS}/${account}: ${(err as Error).message}`);
    }
    await sleep(delay, signal);
  }
  return undefined;
}
