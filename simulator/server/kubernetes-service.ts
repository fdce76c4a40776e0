// The `kubernetes` Service and its Endpoints in `default`, as the real API server's bootstrap controller writes
// them at start-up (1.9 master controller: UpdateKubernetesService): a selector-less ClusterIP Service on the
// first address of the service range, port "https" 443 → the server's own port, labels component=apiserver and
// provider=kubernetes, session affinity ClientIP; the Endpoints name this server's address and port. Clients
// inside pods, and libraries that read it (the Python models, `kubectl cluster-info`), expect both. The Service
// is created once and left alone; the Endpoints are brought back to this server's address on every start.

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { StoreError } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import { createStored, getStored, STORAGE_REFS, updateStored } from './registry/storage.ts';

const LABELS = { component: 'apiserver', provider: 'kubernetes' };

function meta(ctx: ServerContext, resource: string): KubeObject['metadata'] {
  return {
    name: 'kubernetes',
    namespace: 'default',
    selfLink: `/api/v1/namespaces/default/${resource}/kubernetes`,
    uid: randomUUID(),
    resourceVersion: '0',
    creationTimestamp: ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    labels: { ...LABELS },
  };
}

/** Creates the Service (once) and sets its Endpoints to `ip:port`. Another API server on the same store may race. */
export async function ensureKubernetesService(ctx: ServerContext, ip: string, port: number): Promise<void> {
  const ignoreExists = (e: unknown) => {
    if (!(e instanceof StoreError && e.code === 'KeyExists')) throw e;
  };
  if (!(await getStored(ctx, STORAGE_REFS.services, 'default', 'kubernetes'))) {
    const svc: KubeObject = {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: meta(ctx, 'services'),
      spec: {
        ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }],
        clusterIP: '',
        type: 'ClusterIP',
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      },
      status: { loadBalancer: {} },
    };
    // The allocator hands out the first free address: at start-up, the first of the range (10.0.0.1).
    await ctx.serviceAddresses.allocate(svc);
    await createStored(ctx, STORAGE_REFS.services, 'default', 'kubernetes', svc).catch(ignoreExists);
  }
  const subsets = [{ addresses: [{ ip }], ports: [{ name: 'https', port, protocol: 'TCP' }] }];
  const current = await getStored(ctx, STORAGE_REFS.endpoints, 'default', 'kubernetes');
  if (!current) {
    await createStored(ctx, STORAGE_REFS.endpoints, 'default', 'kubernetes', { kind: 'Endpoints', apiVersion: 'v1', metadata: meta(ctx, 'endpoints'), subsets }).catch(ignoreExists);
    return;
  }
  await updateStored(ctx, STORAGE_REFS.endpoints, 'default', 'kubernetes', (cur) => {
    if (!cur) return undefined;
    if (JSON.stringify(cur.value.subsets) === JSON.stringify(subsets)) return undefined;
    return { ...cur.value, metadata: { ...cur.value.metadata, resourceVersion: '0' }, subsets };
  });
}
