// The Python `kubernetes` client's exec and port-forward (WebSocket) against the simulator: python/streams.py runs
// the scenarios of the client's own e2e tests test_pod_apis, test_exit_code and test_portforward_http, plus an
// echo through a declared port; each check is reported here as its own test.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { clientDir, pythonClient, REPO, requireClient, run, skipUnlessFound, type ClientDir } from '../testing/real-clients.ts';

const probe = pythonClient();
const NS = 'pystreams';
const CHECKS = ['exec_pod_apis', 'exec_exit_codes', 'exec_stdout_and_status', 'portforward_http', 'portforward_declared_port_echo'];

describe(`Python kubernetes client ${probe.found?.version ?? ''}: exec and port-forward`, { skip: skipUnlessFound(probe) }, () => {
  let sim: RunningSimulator;
  let cd: ClientDir;
  const results = new Map<string, { ok: boolean; detail: string }>();
  let output = '';

  before(async () => {
    const python = requireClient(probe).path;
    sim = await startSimulator({ controllers: false, nodes: { count: 1, startMs: 50, log: () => {} } });
    cd = clientDir(sim.url, NS);
    const created = await fetch(`${sim.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: NS } }) });
    assert.equal(created.status, 201);
    const r = await run(python, [join(REPO, 'simulator/clients/python/streams.py'), cd.kubeconfig, NS], { env: cd.env, timeoutMs: 120_000 });
    output = `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
    for (const line of r.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      const res = JSON.parse(line) as { check: string; ok: boolean; detail: string };
      results.set(res.check, res);
    }
  });
  after(async () => {
    await sim?.close();
    if (cd) rmSync(cd.dir, { recursive: true, force: true });
  });

  for (const name of CHECKS) {
    test(name.replaceAll('_', ' '), () => {
      const res = results.get(name);
      assert.ok(res, `streams.py reported nothing for ${name}:\n${output}`);
      assert.ok(res.ok, res.detail);
    });
  }
});
