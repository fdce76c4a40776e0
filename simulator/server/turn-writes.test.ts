import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, Socket } from 'node:net';
import { once } from 'node:events';
import { atTurnEnd, waitingCount } from './turn-writes.ts';
import { startApiServer } from './start.ts';

test('tasks run at the end of the turn, in the order given; one given meanwhile waits for the next turn', async () => {
  const ran: string[] = [];
  atTurnEnd({ run: () => ran.push('a') });
  atTurnEnd({
    run: () => {
      ran.push('b');
      atTurnEnd({ run: () => ran.push('c') });
    },
  });
  await Promise.resolve();
  assert.deepEqual(ran, [], 'nothing runs within the turn (microtasks included)');
  assert.equal(waitingCount(), 2);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ran, ['a', 'b'], 'the turn-end pass runs what was given before it');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(waitingCount(), 0);
});

test('a task that throws does not keep the others from running', async (t) => {
  const write = t.mock.method(process.stderr, 'write', () => true);
  const ran: string[] = [];
  atTurnEnd({ run: () => ran.push('first') });
  atTurnEnd({
    run: () => {
      throw new Error('boom');
    },
  });
  atTurnEnd({ run: () => ran.push('last') });
  await new Promise((r) => setImmediate(r));
  write.mock.restore();
  assert.deepEqual(ran, ['first', 'last']);
  assert.match(String(write.mock.calls[0]?.arguments[0]), /boom/);
});

test('answers made in one turn are written back to back, after every request read in that turn was handled', async (t) => {
  // Three keep-alive connections send a create each at once, so the server reads the three in one turn. The store's
  // creates and the server's socket writes are recorded in order: each answer used to be written right after its own
  // create (stored, write, stored, write...); now the three writes follow the three creates.
  // Without the per-client queues, whose time budget (5 ms a turn) could move a request to the turn's end on a
  // loaded machine; the path is warmed by one create first, so that nothing waits on a first load.
  const api = await startApiServer({ port: 0, fairQueueBudgetMs: 0 });
  const events: string[] = [];
  try {
    const post = (path: string, body: object) => fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'tw' } })).status, 201);
    assert.equal((await post('/api/v1/namespaces/tw/configmaps', { metadata: { name: 'warm' }, data: { k: 'v' } })).status, 201);
    const sockets = await Promise.all(
      [0, 1, 2].map(async () => {
        const s = connect(api.port, '127.0.0.1');
        await once(s, 'connect');
        return s;
      }),
    );
    const answered = sockets.map(
      (s) =>
        new Promise<string>((resolve) => {
          let text = '';
          s.on('data', (d) => {
            text += d;
            const head = text.indexOf('\r\n\r\n');
            const length = /content-length: (\d+)/i.exec(text)?.[1];
            if (head >= 0 && length !== undefined && Buffer.byteLength(text) - head - 4 >= Number(length)) resolve(text);
          });
        }),
    );
    await new Promise((r) => setTimeout(r, 20)); // the server has accepted the three connections
    const store = api.ctx.store;
    const create = store.create.bind(store);
    t.mock.method(store, 'create', (...args: Parameters<typeof store.create>) => {
      events.push('stored');
      return create(...args);
    });
    const clientPorts = new Set(sockets.map((s) => s.localPort));
    // Every socket write of node's net module (write and writev) goes through Socket.prototype._writeGeneric.
    const proto = Socket.prototype as unknown as { _writeGeneric: (this: Socket, ...a: unknown[]) => unknown };
    const original = proto._writeGeneric;
    t.mock.method(proto, '_writeGeneric', function (this: Socket, ...args: unknown[]) {
      if (clientPorts.has(this.remotePort)) events.push('write');
      return original.apply(this, args);
    });
    for (const [i, s] of sockets.entries()) {
      const body = JSON.stringify({ metadata: { name: `cm-${i}` }, data: { k: 'v' } });
      s.write(`POST /api/v1/namespaces/tw/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    }
    const texts = await Promise.all(answered);
    for (const text of texts) assert.match(text, /^HTTP\/1\.1 201 Created\r\n[\s\S]*"kind":"ConfigMap"/);
    assert.deepEqual(events, ['stored', 'stored', 'stored', 'write', 'write', 'write']);
    for (const s of sockets) s.destroy();
  } finally {
    await api.close();
  }
});

test('an error found after an await (a create in a namespace that does not exist) is answered once, as a Status', async () => {
  const api = await startApiServer({ port: 0 });
  try {
    const res = await fetch(`${api.url}/api/v1/namespaces/missing/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'x' } }),
    });
    assert.equal(res.status, 404);
    const status = (await res.json()) as { kind: string; reason: string };
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'NotFound');
  } finally {
    await api.close();
  }
});
