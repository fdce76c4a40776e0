// Endpoints controller: ready pod IPs under addresses, unready under notReadyAddresses, named target ports.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['endpoint'] });
  api = new Api(env.url);
});
after(() => env.close());

interface Subset {
  addresses?: Array<{ ip: string; targetRef: { name: string } }>;
  notReadyAddresses?: Array<{ ip: string; targetRef: { name: string } }>;
  ports?: Array<{ name?: string; port: number; protocol: string }>;
}
const subsets = (ep: KubeObject | undefined) => ((ep as { subsets?: Subset[] } | undefined)?.subsets ?? []);

const pod = (name: string, labels: Record<string, string>, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels, annotations },
  spec: { containers: [{ name: 'main', image: 'nginx:1.13', ports: [{ name: 'http', containerPort: 8080 }] }] },
});

test('a Service gets Endpoints with its ready pods under addresses and the others under notReadyAddresses', async () => {
  const ns = await api.namespace();
  await api.create(`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { tier: 'front' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
  await api.create(`/api/v1/namespaces/${ns}/pods`, pod('a', { app: 'web' }));
  await api.create(`/api/v1/namespaces/${ns}/pods`, pod('b', { app: 'web' }, { 'simulator.cluster.local/never-ready': 'true' }));
  await api.create(`/api/v1/namespaces/${ns}/pods`, pod('c', { app: 'other' }));
  const ep = await eventually('endpoints', async () => {
    const x = await api.get(`/api/v1/namespaces/${ns}/endpoints/web`);
    const s = subsets(x)[0];
    return s?.addresses?.length === 1 && s.notReadyAddresses?.length === 1 && x;
  });
  const s = subsets(ep)[0];
  assert.equal(s.addresses![0].targetRef.name, 'a');
  assert.equal(s.notReadyAddresses![0].targetRef.name, 'b');
  assert.deepEqual(s.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  assert.equal(ep.metadata.labels?.tier, 'front');
  const podA = await api.get(`/api/v1/namespaces/${ns}/pods/a`);
  assert.equal(s.addresses![0].ip, (podA?.status as { podIP: string }).podIP);
  // A deleted pod leaves; a deleted Service takes its Endpoints along.
  await api.delete(`/api/v1/namespaces/${ns}/pods/a`);
  await eventually('a removed', async () => !subsets(await api.get(`/api/v1/namespaces/${ns}/endpoints/web`)).some((x) => x.addresses?.length));
  await api.delete(`/api/v1/namespaces/${ns}/services/web`);
  await eventually('endpoints deleted', async () => (await api.get(`/api/v1/namespaces/${ns}/endpoints/web`)) === undefined);
});
