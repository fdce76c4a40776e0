// A Python script of simulator/clients/python/ run against a simulator of its own, each JSON line it prints
// ({"check", "ok", "detail"}) reported as a test: the shape of python.test.ts and python-streams.test.ts.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../cluster.ts';
import { clientDir, pythonClient, REPO, requireClient, run, skipUnlessFound, type ClientDir } from './real-clients.ts';

export function pythonChecks(title: string, script: string, namespace: string, checks: string[], simulator: SimulatorOptions): void {
  const probe = pythonClient();
  describe(`Python kubernetes client ${probe.found?.version ?? ''}: ${title}`, { skip: skipUnlessFound(probe) }, () => {
    let sim: RunningSimulator;
    let cd: ClientDir;
    const results = new Map<string, { ok: boolean; detail: string }>();
    let output = '';

    before(async () => {
      const python = requireClient(probe).path;
      sim = await startSimulator(simulator);
      cd = clientDir(sim.url, namespace);
      const created = await fetch(`${sim.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: namespace } }) });
      assert.equal(created.status, 201);
      const r = await run(python, [join(REPO, 'simulator/clients/python', script), cd.kubeconfig, namespace], { env: cd.env, timeoutMs: 120_000 });
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

    for (const name of checks) {
      test(name.replaceAll('_', ' '), () => {
        const res = results.get(name);
        assert.ok(res, `${script} reported nothing for ${name}:\n${output}`);
        assert.ok(res.ok, res.detail);
      });
    }
  });
}
