// Service cluster IPs and node ports: allocated on create, unique, in range, released on removal.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { httpCall } from '../../testing/http.ts';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator();
});
after(async () => {
  await sim.close();
});

const call = (method: string, path: string, body?: unknown) => httpCall(sim.url, method, path, body);

const SVC = '/api/v1/namespaces/default/services';
const svc = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });

test('every new ClusterIP service gets a distinct cluster IP inside 10.0.0.0/24; removal frees it', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), async (deleteAfter) => {
      const made: string[] = [];
      for (const [i, del] of deleteAfter.entries()) {
        const name = `ip-${Date.now().toString(36)}-${i}`;
        const r = await call('POST', SVC, svc(name));
        assert.equal(r.status, 201, JSON.stringify(r.body));
        const ip = r.body.spec.clusterIP as string;
        assert.match(ip, /^10\.0\.0\.(\d+)$/);
        assert.ok(Number(ip.split('.')[3]) >= 1 && Number(ip.split('.')[3]) <= 254, "Number(ip.split('.')[3]) >= 1 && Number(ip.split('.')[3]) <= 254");
        if (del) assert.equal((await call('DELETE', `${SVC}/${name}`)).status, 200);
        else made.push(name);
      }
      const live = (await call('GET', SVC)).body.items.map((s: { spec: { clusterIP?: string } }) => s.spec.clusterIP).filter((ip: string | undefined) => ip && ip !== 'None');
      assert.equal(new Set(live).size, live.length, 'no two live services share an IP');
      for (const name of made) await call('DELETE', `${SVC}/${name}`);
    }),
    { numRuns: 5 },
  );
});

test('a requested cluster IP is honoured once; taken or out of range is 422 on spec.clusterIP', async () => {
  const a = await call('POST', SVC, svc('want-a', { clusterIP: '10.0.0.200' }));
  assert.equal(a.status, 201);
  assert.equal(a.body.spec.clusterIP, '10.0.0.200');
  const b = await call('POST', SVC, svc('want-b', { clusterIP: '10.0.0.200' }));
  assert.equal(b.status, 422);
  assert.equal(b.body.details.causes[0].field, 'spec.clusterIP');
  assert.match(b.body.details.causes[0].message, /already allocated/);
  const c = await call('POST', SVC, svc('want-c', { clusterIP: '192.168.1.1' }));
  assert.equal(c.status, 422);
  assert.match(c.body.details.causes[0].message, /not in the valid range/);
  await call('DELETE', `${SVC}/want-a`);
  // The delete is seen by the store watch that releases addresses; it runs right after the write.
  let again;
  for (let i = 0; i < 20; i++) {
    again = await call('POST', SVC, svc('want-d', { clusterIP: '10.0.0.200' }));
    if (again.status === 201) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(again!.status, 201, 'the IP is free again after the delete');
});

test('headless and ExternalName services get no cluster IP; NodePort services get node ports in 30000-32767', async () => {
  const headless = await call('POST', SVC, svc('headless', { clusterIP: 'None' }));
  assert.equal(headless.body.spec.clusterIP, 'None');
  const ext = await call('POST', SVC, { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
  assert.equal(ext.status, 201, JSON.stringify(ext.body));
  assert.equal(ext.body.spec.clusterIP, undefined);
  const np = await call('POST', SVC, svc('np', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }));
  assert.equal(np.status, 201, JSON.stringify(np.body));
  const ports = np.body.spec.ports.map((p: { nodePort: number }) => p.nodePort);
  assert.equal(new Set(ports).size, 2);
  for (const p of ports) assert.ok(p >= 30000 && p <= 32767, 'p >= 30000 && p <= 32767');
  const clash = await call('POST', SVC, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] }));
  assert.equal(clash.status, 422);
  assert.equal(clash.body.details.causes[0].field, 'spec.ports[0].nodePort');
});

test('a failed create gives its address back', async () => {
  assert.equal((await call('POST', SVC, svc('dup', { clusterIP: '10.0.0.150' }))).status, 201);
  const dup = await call('POST', SVC, svc('dup', { clusterIP: '10.0.0.151' }));
  assert.equal(dup.status, 409);
  const reuse = await call('POST', SVC, svc('reuse', { clusterIP: '10.0.0.151' }));
  assert.equal(reuse.status, 201, 'the IP of the refused create was released');
});
