// componentstatuses: computed from the parts this process runs (the API server alone, then the whole cluster).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './start.ts';
import { startSimulator } from '../cluster.ts';
import { decodeObject } from '../codec/protobuf.ts';

interface Cs { metadata: { name: string; selfLink: string }; conditions: Array<{ type: string; status: string; message: string; error?: string }> }

async function list(url: string): Promise<Cs[]> {
  const r = await fetch(`${url}/api/v1/componentstatuses`);
  assert.equal(r.status, 200);
  const body = (await r.json()) as { kind: string; items: Cs[] };
  assert.equal(body.kind, 'ComponentStatusList');
  return body.items;
}

test('the API server alone: etcd healthy, scheduler and controller manager refused as the real probe says', async () => {
  const s = await startApiServer();
  try {
    const items = await list(s.url);
    assert.deepEqual(items.map((i) => [i.metadata.name, i.conditions[0].status]), [['controller-manager', 'False'], ['scheduler', 'False'], ['etcd-0', 'True']]);
    assert.match(items[1].conditions[0].error ?? '', /10251.*connection refused/);
    assert.equal(items[2].conditions[0].message, '{"health": "true"}');
    const one = await fetch(`${s.url}/api/v1/componentstatuses/etcd-0`);
    assert.equal(((await one.json()) as Cs).metadata.selfLink, '/api/v1/componentstatuses/etcd-0');
    assert.equal((await fetch(`${s.url}/api/v1/componentstatuses/nope`)).status, 404);
    // In protobuf too (core/v1 ComponentStatus and its list have a protobuf form in 1.9).
    for (const path of ['/api/v1/componentstatuses', '/api/v1/componentstatuses/etcd-0']) {
      const pb = await fetch(`${s.url}${path}`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      assert.equal(pb.headers.get('content-type'), 'application/vnd.kubernetes.protobuf');
      const decoded = decodeObject(new Uint8Array(await pb.arrayBuffer())) as { kind: string };
      assert.equal(decoded.kind, path.endsWith('etcd-0') ? 'ComponentStatus' : 'ComponentStatusList');
    }
    assert.equal((await fetch(`${s.url}/api/v1/componentstatuses`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status, 405);
  } finally {
    await s.close();
  }
});

test('with the daemon and the nodes: every part healthy', async () => {
  const sim = await startSimulator({ controllers: ['garbagecollector'], nodes: 1 });
  try {
    const items = await list(sim.url);
    assert.deepEqual(items.map((i) => [i.metadata.name, i.conditions[0].status, i.conditions[0].message]), [['controller-manager', 'True', 'ok'], ['scheduler', 'True', 'ok'], ['etcd-0', 'True', '{"health": "true"}']]);
  } finally {
    await sim.close();
  }
});
