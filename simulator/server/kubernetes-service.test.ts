// The `kubernetes` Service and Endpoints in `default` (kubernetes-service.ts), as the real bootstrap writes them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './start.ts';
import { MemoryStore } from '../storage/memory.ts';

type Json = Record<string, any>;

test('the kubernetes Service and Endpoints exist from the start and follow the server\'s address', async () => {
  const store = new MemoryStore();
  const first = await startApiServer({ store });
  const get = async (url: string, path: string) => (await (await fetch(url + path)).json()) as Json;
  const svc = await get(first.url, '/api/v1/namespaces/default/services/kubernetes');
  assert.equal(svc.kind, 'Service');
  assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
  assert.equal(svc.spec.clusterIP, '10.0.0.1');
  assert.equal(svc.spec.type, 'ClusterIP');
  assert.equal(svc.spec.selector, undefined);
  assert.deepEqual(svc.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: first.port }]);
  const ep = await get(first.url, '/api/v1/namespaces/default/endpoints/kubernetes');
  assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: first.port, protocol: 'TCP' }] }]);
  // A second server on the same store keeps the Service (same uid) and points the Endpoints at itself.
  await first.app.close();
  const second = await startApiServer({ store });
  try {
    assert.equal((await get(second.url, '/api/v1/namespaces/default/services/kubernetes')).metadata.uid, svc.metadata.uid);
    const ep2 = await get(second.url, '/api/v1/namespaces/default/endpoints/kubernetes');
    assert.equal(ep2.subsets[0].ports[0].port, second.port);
    // A new Service never gets the kubernetes Service's address.
    const other = await fetch(`${second.url}/api/v1/namespaces/default/services`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }) });
    assert.equal(other.status, 201);
    assert.notEqual(((await other.json()) as Json).spec.clusterIP, '10.0.0.1');
  } finally {
    await second.close();
  }
});
