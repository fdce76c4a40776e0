// Which controllers a --controllers value selects, every feature gate in --help and /configz, and the client-config
// file and --master (a part of daemon-controllers.suite.ts; the suite file's header says what each checks).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { type ControllerRow, type FeatureGateRow } from '../../spec-tables/index.ts';
import { check } from '../harness/check.ts';
import { expectTrue, fail } from '../harness/expect.ts';
import { freePort, runToExit } from '../daemon/daemon-process.ts';
import { configEntry, sameValue } from '../daemon/option-values.ts';
import { busyScaled, within } from '../harness/progress.ts';
import { LOG_MS, START_TIMEOUT_MS, TABLES, tail, withControllers, withDaemon, withEnv } from './env.ts';

export type Selection = Map<string, 'enabled' | 'disabled' | 'both'>;

/** What the daemon's output says about each controller name (absent: it says nothing about it). */
export function readSelection(output: string, names: readonly string[]): Selection {
  const sel: Selection = new Map();
  const mark = (name: string, state: 'enabled' | 'disabled') => {
    const prev = sel.get(name);
    sel.set(name, prev && prev !== state ? 'both' : state);
  };
  for (const m of output.matchAll(/\b(enabled|disabled) controllers:\s*([^\n]*)/gi)) {
    const state = m[1].toLowerCase() as 'enabled' | 'disabled';
    for (const word of m[2].split(/[\s,]+/)) if (names.includes(word)) mark(word, state);
  }
  for (const name of names) {
    const q = `["']${escape(name)}["']`;
    if (new RegExp(`${q} is disabled`, 'i').test(output)) mark(name, 'disabled');
    if (new RegExp(`\\b(started|starting|skipping|not starting) ${q}`, 'i').test(output)) mark(name, 'enabled');
  }
  return sel;
}

/** The controllers a --controllers value selects (spec 8.2: * = all on by default, name, -name). */
export function expectedSelection(value: readonly string[], controllers: readonly ControllerRow[]): Set<string> {
  const on = new Set<string>();
  const star = value.includes('*');
  for (const c of controllers) {
    if (value.includes(`-${c.name}`)) continue;
    if (value.includes(c.name) || (star && c.enabledByDefault)) on.add(c.name);
  }
  return on;
}

const CONTROLLER_ROWS = TABLES.controllers.map((c) => c.id);

check(
  'daemon-controllers.selection',
  {
    rows: [...CONTROLLER_ROWS, 'rule.daemon.named-controllers', 'option.controllers'],
    title: '--controllers selects controllers as the spec says (default: all but bootstrapsigner and tokencleaner), shown in /configz and the start log',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const names = env.controllers.map((c) => c.name);
      const onByDefault = env.controllers.filter((c) => c.enabledByDefault).map((c) => c.name);
      // Three selections: the default, * with the off-by-default ones on and some others off, and an explicit list.
      const [dropped, picked] = fc.sample(
        fc.tuple(fc.subarray(onByDefault, { minLength: 1, maxLength: 4 }), fc.subarray(names, { minLength: 1, maxLength: 4 })),
        { seed: ctx.fc.seed, numRuns: 1 },
      )[0];
      const cases: Array<{ value: string[] | undefined; what: string }> = [
        { value: undefined, what: 'default --controllers' },
        { value: ['*', 'bootstrapsigner', 'tokencleaner', ...dropped.map((n) => `-${n}`)], what: '' },
        { value: picked, what: '' },
      ];
      const problems: Array<{ row: string; message: string }> = [];
      let saidNothing = 0;
      await Promise.all(
        cases.map(async (c) => {
          const label = c.value ? `--controllers=${c.value.join(',')}` : 'no --controllers';
          const args = [`--master=${env.masterUrl}`, '--leader-elect=false', ...(c.value ? [`--controllers=${c.value.join(',')}`] : [])];
          await withDaemon(env, args, label, async (config, p) => {
            const entry = configEntry(config, '--controllers');
            const shown = c.value ?? ['*'];
            if (!entry.found || !sameValue('stringSlice', shown, entry.value))
              problems.push({
                row: 'option.controllers',
                message: `${label}: /configz shows ${JSON.stringify(entry.value)}, expected ${JSON.stringify(shown)}`,
              });
            const want = expectedSelection(shown, env.controllers);
            const sel = (await within(LOG_MS, async () => {
              const s = readSelection(`${p.stdout}\n${p.stderr}`, names);
              return s.size === names.length ? s : undefined;
            })) ?? readSelection(`${p.stdout}\n${p.stderr}`, names);
            if (sel.size === 0) {
              saidNothing++;
              return;
            }
            const row = (n: string) => env.controllers.find((x) => x.name === n)!.id;
            for (const n of names) {
              const got = sel.get(n);
              const expected = want.has(n) ? 'enabled' : 'disabled';
              if (got === undefined)
                problems.push({
                  row: row(n),
                  message: `${label}: the start log does not say whether ${n} runs (it names ${sel.size} of ${names.length} controllers)`,
                });
              else if (got !== expected) problems.push({ row: row(n), message: `${label}: the start log shows ${n} ${got}, expected ${expected}` });
            }
            const extra = [...`${p.stdout}\n${p.stderr}`.matchAll(/\benabled controllers:\s*([^\n]*)/gi)]
              .flatMap((m) => m[1].split(/[\s,]+/))
              .filter((w) => w && !names.includes(w));
            if (extra.length)
              problems.push({
                row: 'rule.daemon.named-controllers',
                message: `${label}: the daemon runs controllers the spec does not list: ${extra.join(', ')}`,
              });
          });
        }),
      );
      if (saidNothing === cases.length && problems.every((p) => p.row === 'option.controllers')) {
        if (problems.length) fail(problems.map((p) => `${p.row}: ${p.message}`).join('\n'), ['option.controllers']);
        ctx.skip(
          "the daemon's output says nothing about which controllers run (neither 'Started \"x\"' / '\"x\" is disabled' lines nor enabled/disabled lists)",
        );
      }
      if (problems.length) {
        const lines = problems.slice(0, 20).map((p) => `  ${p.row}: ${p.message}`);
        fail(`${problems.length} problem(s) with the controller selection:\n${lines.join('\n')}`, [...new Set(problems.map((p) => p.row))]);
      }
    });
  },
);

const GATE_ROWS = TABLES.featureGates.map((g) => g.id);

/** "Name=true|false (STAGE - default=x)" as the 1.9 --help prints gates; the stage is left out for GA gates. */
export function gateHelpProblem(help: string, gate: FeatureGateRow): string | undefined {
  const line = help.split('\n').find((l) => new RegExp(`(^|[\\s,])${escape(gate.name)}=true\\|false\\b`).test(l));
  if (!line) return `${gate.name}=true|false is not in --help`;
  const m = /\((?:(alpha|beta|ga)\s*-\s*)?default=(true|false)\)/i.exec(line.slice(line.indexOf(`${gate.name}=`)));
  if (!m) return `--help shows ${gate.name} without "(stage - default=...)": ${line.trim()}`;
  const stage = m[1]?.toLowerCase() ?? null;
  if ((gate.stage ?? null) !== stage && !(gate.stage === null && stage === 'ga'))
    return `--help shows ${gate.name} at stage ${stage ?? '(none)'}, spec says ${gate.stage ?? '(none)'}`;
  if (String(gate.default) !== m[2].toLowerCase()) return `--help shows ${gate.name} default=${m[2]}, spec says ${gate.default}`;
  return undefined;
}

check(
  'daemon-controllers.feature-gates',
  {
    rows: [...GATE_ROWS, 'option.feature-gates'],
    title: 'every feature gate is listed with its stage and default in --help, and all of them set against their default at once are accepted and shown in /configz',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const problems: Array<{ row: string; message: string }> = [];
      const help = await runToExit(env.command, ['--help'], env.cwd, START_TIMEOUT_MS);
      if (help.code !== 0) fail(`--help exited with ${help.code ?? help.signal}: ${tail(help.stderr || help.stdout)}`);
      const text = `${help.stdout}\n${help.stderr}`;
      for (const g of env.gates) {
        const p = gateHelpProblem(text, g);
        if (p) problems.push({ row: g.id, message: p });
      }
      const flipped = Object.fromEntries(env.gates.map((g) => [g.name, !g.default]));
      const arg = `--feature-gates=${Object.entries(flipped).map(([k, v]) => `${k}=${v}`).join(',')}`;
      await withControllers(env, 'serviceaccount', [arg], 'every gate set against its default', async ({ config, configz }) => {
        const entry = configEntry(config, '--feature-gates');
        if (!entry.found) problems.push({ row: 'option.feature-gates', message: '/configz has no feature gates entry' });
        else {
          const shown = (entry.value ?? {}) as Record<string, unknown>;
          for (const g of env.gates)
            if (shown[g.name] !== flipped[g.name])
              problems.push({ row: g.id, message: `/configz shows ${g.name}=${JSON.stringify(shown[g.name])} after ${g.name}=${flipped[g.name]}` });
        }
        // Where /configz also describes each gate (stage, default, state), it must agree with the spec.
        const described = configz.featureGates as Record<string, { enabled?: unknown; stage?: unknown; default?: unknown }> | undefined;
        if (described && typeof described === 'object') {
          for (const g of env.gates) {
            const d = described[g.name];
            if (!d) continue;
            if (d.default !== undefined && d.default !== g.default)
              problems.push({ row: g.id, message: `/configz describes ${g.name} with default ${JSON.stringify(d.default)}, spec says ${g.default}` });
            if (
              d.stage !== undefined &&
              String(d.stage || '').toLowerCase() !== String(g.stage ?? '').toLowerCase() &&
              !(g.stage === null && String(d.stage).toLowerCase() === 'ga')
            )
              problems.push({ row: g.id, message: `/configz describes ${g.name} at stage ${JSON.stringify(d.stage)}, spec says ${g.stage}` });
            if (d.enabled !== undefined && d.enabled !== flipped[g.name])
              problems.push({ row: g.id, message: `/configz shows ${g.name} enabled=${JSON.stringify(d.enabled)} after ${g.name}=${flipped[g.name]}` });
          }
        }
      });
      if (problems.length) {
        const lines = problems.slice(0, 20).map((p) => `  ${p.row}: ${p.message}`);
        fail(`${problems.length} problem(s) with feature gates:\n${lines.join('\n')}`, [...new Set(problems.map((p) => p.row))]);
      }
    });
  },
);

/** Waits until the default ServiceAccount of a new namespace exists on the simulator (the serviceaccount controller acted). */
async function serviceAccountAppears(masterUrl: string, ns: string, ms: number): Promise<boolean> {
  const created = await fetch(`${masterUrl}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
  });
  await created.body?.cancel();
  if (![200, 201, 202].includes(created.status)) fail(`setup: creating namespace ${ns} on the daemon's simulator answered ${created.status}`);
  return (
    (await within(ms, async () => {
      const res = await fetch(`${masterUrl}/api/v1/namespaces/${ns}/serviceaccounts/default`);
      await res.body?.cancel();
      return res.status === 200 ? true : undefined;
    })) ?? false
  );
}

check(
  'daemon-controllers.client-config-and-master',
  {
    rows: ['auth.daemon.client-config', 'auth.daemon.master-overrides', 'auth.daemon.cloud-credentials', 'rule.daemon.control-loops', 'controller.serviceaccount', 'option.xconfig', 'option.master'],
    title: 'the daemon reaches the API through the client-config file, --master overrides the file, the cloud credential options are accepted',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const cred = join(env.dir, 'cloud-credentials.json');
      writeFileSync(cred, '{}\n');
      // No controller acts on this simulator yet: a new namespace stays without a ServiceAccount.
      const probe = await fetch(`${env.masterUrl}/api/v1/namespaces/default/serviceaccounts/default`);
      await probe.body?.cancel();
      // Whether the daemon acts at all: stretched on a busy machine.
      const bound = busyScaled(30_000);
      // 1. Only the client-config file names the API (plus the cloud credential options).
      const cloud = [`--cloud-a-container-registry-config=${cred}`, `--cloud-b-json-key=${cred}`];
      await withDaemon(env, [`--xconfig=${env.kubeconfig(env.masterUrl)}`, '--leader-elect=false', '--controllers=serviceaccount', ...cloud], '--xconfig only', async (config) => {
        for (const [opt, row] of [
          ['--cloud-a-container-registry-config', 'auth.daemon.cloud-credentials'],
          ['--cloud-b-json-key', 'auth.daemon.cloud-credentials'],
        ] as const) {
          const e = configEntry(config, opt);
          expectTrue(e.found && e.value === cred, `/configz shows ${opt}=${cred} (got ${JSON.stringify(e.value)})`, row);
        }
        const ok = await serviceAccountAppears(env.masterUrl, `xconfig-${ctx.fc.seed % 100000}`, bound);
        expectTrue(
          ok,
          `with only --xconfig naming the API, the daemon's serviceaccount controller gave a new namespace its default ServiceAccount within ${bound / 1000} s`,
          ['auth.daemon.client-config', 'rule.daemon.control-loops', 'controller.serviceaccount', 'option.xconfig'],
        );
      });
      // 2. The file names an address where nothing listens; --master names the API and wins.
      const dead = `http://127.0.0.1:${await freePort()}`;
      await withDaemon(env, [`--xconfig=${env.kubeconfig(dead)}`, `--master=${env.masterUrl}`, '--leader-elect=false', '--controllers=serviceaccount'], '--xconfig naming a dead address and --master', async () => {
        const ok = await serviceAccountAppears(env.masterUrl, `master-${ctx.fc.seed % 100000}`, bound);
        expectTrue(
          ok,
          `with --xconfig naming ${dead} and --master naming the API, the daemon acted on the API within ${bound / 1000} s (a new namespace got its default ServiceAccount)`,
          ['auth.daemon.master-overrides', 'option.master'],
        );
      });
    });
  },
);
