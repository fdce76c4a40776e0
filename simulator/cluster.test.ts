// cluster.ts: with clientsBehind the API server answers before the daemon and the nodes are up, `ready` says when
// they are, and a close during their start waits for it and closes them too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from './cluster.ts';

test('clientsBehind: /api answers at once; ready brings the daemon and the nodes, which then work', async () => {
  const sim = await startSimulator({ port: 0, controllers: true, nodes: 1, clientsBehind: true });
  try {
    const api = await fetch(`${sim.url}/api`);
    assert.equal(api.status, 200);
    await sim.ready;
    assert.ok(sim.daemon, 'the daemon is up');
    assert.deepEqual(sim.nodes?.nodeNames, ['sim-node-0']);
    // The node registered itself through the API.
    const deadline = Date.now() + 60_000;
    let node = 0;
    while (Date.now() < deadline && node !== 200) {
      node = (await fetch(`${sim.url}/api/v1/nodes/sim-node-0`)).status;
      if (node !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(node, 200, 'the node registered');
  } finally {
    await sim.close();
  }
});

test('clientsBehind: a close while the daemon and nodes start waits for them and closes everything', async () => {
  const sim = await startSimulator({ port: 0, controllers: true, nodes: 1, clientsBehind: true });
  await sim.close();
  await sim.ready;
  assert.ok(sim.daemon && sim.nodes, 'their start finished before the close');
  await assert.rejects(fetch(`${sim.url}/api`), 'the server is closed');
});

test('without clientsBehind the daemon and the nodes are up when startSimulator returns', async () => {
  const sim = await startSimulator({ port: 0, controllers: true, nodes: 1 });
  try {
    assert.ok(sim.daemon, 'the daemon is up');
    assert.ok(sim.nodes, 'the nodes are up');
    await sim.ready;
  } finally {
    await sim.close();
  }
});

test('clientsBehind as a promise: the daemon and the nodes start once it settles; a close before that starts neither', async () => {
  let go = () => {};
  const gate = new Promise<void>((r) => (go = r));
  const sim = await startSimulator({ port: 0, controllers: true, nodes: 1, clientsBehind: gate });
  try {
    assert.equal((await fetch(`${sim.url}/api`)).status, 200);
    // Nothing registers a node while the gate is shut (a few seconds of a loaded machine's time for a start).
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await fetch(`${sim.url}/api/v1/nodes/sim-node-0`)).status, 404, 'no node before the gate opened');
    assert.equal(sim.daemon, undefined, 'no daemon before the gate opened');
    go();
    await sim.ready;
    assert.ok(sim.daemon && sim.nodes, 'both started once the gate opened');
  } finally {
    await sim.close();
  }
  const never = await startSimulator({ port: 0, controllers: true, nodes: 1, clientsBehind: new Promise(() => {}) });
  await never.close();
  await never.ready;
  assert.equal(never.daemon, undefined, 'a close before the gate opened started no daemon');
  await assert.rejects(fetch(`${never.url}/api`), 'the server is closed');
});
