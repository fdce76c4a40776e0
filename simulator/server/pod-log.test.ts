// pods/log from the simulated container output (pod-log.ts) and the refusal of exec/attach/portforward.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from './start.ts';

type Json = Record<string, any>;

describe('pods/log', () => {
  let server: RunningApiServer;
  const PODS = '/api/v1/namespaces/default/pods';
  const started = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const previous = new Date(Date.now() - 600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const call = async (method: string, path: string, body?: unknown, ct = 'application/json') => {
    const res = await fetch(server.url + path, { method, headers: body === undefined ? {} : { 'content-type': ct }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const json = (t: string) => JSON.parse(t) as Json;

  before(async () => {
    server = await startApiServer();
    const pod = (name: string, containers: string[], annotations?: Record<string, string>) => ({ metadata: { name, annotations }, spec: { containers: containers.map((c) => ({ name: c, image: `img-${c}` })) } });
    assert.equal((await call('POST', PODS, pod('one', ['web'], { 'simulator.cluster.local/log': 'line 1\nline 2\nline 3' }))).status, 201);
    assert.equal((await call('POST', PODS, pod('two', ['a', 'b']))).status, 201);
    assert.equal((await call('POST', PODS, pod('pending', ['c']))).status, 201);
    for (const name of ['one', 'two']) {
      const containers = name === 'one' ? ['web'] : ['a', 'b'];
      const status = {
        status: {
          phase: 'Running',
          containerStatuses: containers.map((c) => ({
            name: c, ready: true, restartCount: 1, image: `img-${c}`, imageID: '',
            state: { running: { startedAt: started } },
            lastState: c === 'web' ? { terminated: { exitCode: 1, reason: 'Error', startedAt: previous, finishedAt: previous } } : {},
          })),
        },
      };
      assert.equal((await call('POST', `${PODS}/${name}/binding`, { target: { kind: 'Node', name: 'n1' } })).status, 201);
      assert.equal((await call('PATCH', `${PODS}/${name}/status`, status, 'application/merge-patch+json')).status, 200);
    }
  });
  after(async () => server.close());

  test('the annotation\'s lines (or one default line per start) as text/plain', async () => {
    const r = await call('GET', `${PODS}/one/log`);
    assert.equal(r.status, 200);
    assert.equal(r.type, 'text/plain');
    assert.equal(r.text, 'line 1\nline 2\nline 3\n');
    assert.equal((await call('GET', `${PODS}/two/log?container=b`)).text, 'container b started (image img-b)\n');
  });

  test('tailLines, timestamps, limitBytes, sinceSeconds, sinceTime and previous', async () => {
    assert.equal((await call('GET', `${PODS}/one/log?tailLines=1`)).text, 'line 3\n');
    assert.equal((await call('GET', `${PODS}/one/log?tailLines=0`)).text, '');
    assert.equal((await call('GET', `${PODS}/one/log?tailLines=1&timestamps=true`)).text, `${started.replace('Z', '.000000000Z')} line 3\n`);
    assert.equal((await call('GET', `${PODS}/one/log?limitBytes=8`)).text, 'line 1\nl');
    assert.equal((await call('GET', `${PODS}/one/log?sinceSeconds=10`)).text, '', 'started a minute ago');
    assert.equal((await call('GET', `${PODS}/one/log?sinceSeconds=3600`)).text.split('\n').length, 4);
    assert.equal((await call('GET', `${PODS}/one/log?sinceTime=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).text, '');
    const prev = await call('GET', `${PODS}/one/log?previous=true&timestamps=1`);
    assert.equal(prev.status, 200);
    assert.match(prev.text, new RegExp(`^${previous.replace('Z', '')}\\.000000000Z line 1\\n`));
  });

  test('follow on a running container streams until the container is replaced', async () => {
    const ctl = new AbortController();
    const res = await fetch(`${server.url}${PODS}/one/log?follow=true&tailLines=1`, { signal: ctl.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.equal(first, 'line 3\n');
    // The container restarts: the followed instance is gone, so the stream ends.
    const restarted = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await call('PATCH', `${PODS}/one/status`, { status: { containerStatuses: [{ name: 'web', ready: true, restartCount: 2, image: 'img-web', imageID: '', state: { running: { startedAt: restarted } }, lastState: {} }] } }, 'application/merge-patch+json');
    const deadline = Date.now() + 10_000;
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      assert.ok(Date.now() < deadline, 'the follow stream ends');
    }
  });

  test('per-container lines and a repeated line every period, followed as it comes due', async () => {
    const startedRecently = new Date(Date.now() - 2500).toISOString();
    const annotations = { 'simulator.cluster.local/log.a': 'only a', 'simulator.cluster.local/log-repeat.b': '1s tick {n}' };
    assert.equal((await call('POST', PODS, { metadata: { name: 'rep', annotations }, spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'i' }] } })).status, 201);
    assert.equal((await call('POST', `${PODS}/rep/binding`, { target: { kind: 'Node', name: 'n1' } })).status, 201);
    const containerStatuses = ['a', 'b'].map((c) => ({ name: c, ready: true, restartCount: 0, image: 'i', imageID: '', state: { running: { startedAt: startedRecently } }, lastState: {} }));
    assert.equal((await call('PATCH', `${PODS}/rep/status`, { status: { phase: 'Running', containerStatuses } }, 'application/merge-patch+json')).status, 200);
    assert.equal((await call('GET', `${PODS}/rep/log?container=a`)).text, 'only a\n');
    // Started 2.5 s ago (stored to the second): two or three ticks so far, one per second since the start.
    const sofar = (await call('GET', `${PODS}/rep/log?container=b`)).text;
    const n = sofar.split('\n').length - 1;
    assert.ok(n === 2 || n === 3, sofar);
    assert.equal(sofar, Array.from({ length: n }, (_, i) => `tick ${i + 1}\n`).join(''));
    const ctl = new AbortController();
    const res = await fetch(`${server.url}${PODS}/rep/log?container=b&follow=true&tailLines=1`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    let got = '';
    while (!got.includes(`tick ${n + 1}\n`)) got += new TextDecoder().decode((await reader.read()).value);
    assert.match(got, new RegExp(`^(tick ${n}\\n)?tick ${n + 1}\\n$`));
    ctl.abort();
  });

  test('the real errors: container name, not started, no previous, bad options, missing pod', async () => {
    const many = await call('GET', `${PODS}/two/log`);
    assert.equal(many.status, 400);
    assert.equal(json(many.text).message, 'a container name must be specified for pod two, choose one of: [a b]');
    assert.equal(json((await call('GET', `${PODS}/two/log?container=zz`)).text).message, 'container zz is not valid for pod two');
    assert.equal(json((await call('GET', `${PODS}/pending/log`)).text).message, 'pod pending does not have a host assigned');
    assert.equal(json((await call('GET', `${PODS}/two/log?container=a&previous=true`)).text).message, 'previous terminated container "a" in pod "two" not found');
    assert.equal((await call('GET', `${PODS}/one/log?tailLines=-1`)).status, 422);
    assert.equal((await call('GET', `${PODS}/one/log?limitBytes=x`)).status, 400);
    const missing = await call('GET', `${PODS}/nope/log`);
    assert.equal(missing.status, 404);
    assert.equal(json(missing.text).message, 'pods "nope" not found');
  });

  test('exec, attach and portforward: 400 saying the node is simulated; discovery lists the subresources', async () => {
    for (const sub of ['exec?command=ls&stdout=true', 'attach', 'portforward']) {
      for (const method of ['GET', 'POST']) {
        const r = await call(method, `${PODS}/one/${sub}`);
        assert.equal(r.status, 400, `${method} ${sub}`);
        assert.match(json(r.text).message, /node n1 is simulated and runs no containers/);
      }
    }
    assert.equal((await call('POST', `${PODS}/nope/exec`)).status, 404);
    const resources = json((await call('GET', '/api/v1')).text).resources as Json[];
    assert.deepEqual(resources.find((r) => r.name === 'pods/log')?.verbs, ['get']);
    for (const n of ['pods/exec', 'pods/attach', 'pods/portforward']) assert.ok(resources.some((r) => r.name === n), n);
  });
});
