// The house rules of the source tree, checked from the files themselves (see the root README's "Design"):
// imports point one way — entry points → cluster.ts → (server | controllers | nodes) → client →
// (codec, patch, storage, openapi) → api → spec-tables → util —, no production file imports a test helper or a test,
// and there is no import cycle between production files. Inside the rooms listed in INNER_FLOORS, the rooms within
// (folders and named files) are floors too, and imports point down them; in CYCLE_FREE no two files import each
// other even through type-only imports; in KIND_BLIND no file outside api/kinds/ branches on a kind name. A new file that breaks a rule fails here with the
// import that does it, so the layout cannot drift back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What each room may import (besides itself). Rooms are top folders of simulator/, plus spec-tables and suites. */
const ALLOWED: Record<string, string[]> = {
  // The ground floor: helpers with no knowledge of the API (JSON values, Go durations) that every room may import.
  'simulator/util': [],
  'spec-tables': ['simulator/util'],
  'simulator/api': ['spec-tables'],
  'simulator/codec': ['simulator/api', 'spec-tables'],
  'simulator/patch': ['simulator/api', 'spec-tables'],
  'simulator/storage': ['simulator/api', 'spec-tables'],
  'simulator/openapi': ['simulator/api', 'simulator/codec', 'spec-tables'],
  'simulator/client': ['simulator/api', 'simulator/codec', 'simulator/patch', 'spec-tables'],
  'simulator/server': ['simulator/api', 'simulator/codec', 'simulator/patch', 'simulator/storage', 'simulator/openapi', 'spec-tables'],
  'simulator/controllers': ['simulator/client', 'simulator/api', 'simulator/codec', 'simulator/patch', 'spec-tables'],
  'simulator/nodes': ['simulator/client', 'simulator/api', 'simulator/codec', 'spec-tables'],
  // The client-side proxy (`npx tsx simulator proxy`): a client of the API like the nodes.
  'simulator/proxy': ['simulator/client', 'simulator/api', 'simulator/codec', 'spec-tables'],
  // startSimulator with the command line's options (what main.ts and the package's entry run): the composition
  // plus its client config, manifests and snapshots.
  'simulator/launch': ['simulator/cluster.ts', 'simulator/server', 'simulator/storage', 'simulator/client', 'simulator/codec', 'simulator/api', 'spec-tables'],
  'simulator/cluster.ts': [
    'simulator/cluster-clients.ts',
    'simulator/cluster-clients-thread.ts',
    'simulator/server',
    'simulator/controllers',
    'simulator/nodes',
    'simulator/client',
    'simulator/storage',
    'simulator/api',
    'simulator/codec',
    'spec-tables',
  ],
  // The cluster's clients (daemon and nodes), started in the calling thread or in a worker thread of their own.
  'simulator/cluster-clients.ts': ['simulator/controllers', 'simulator/nodes'],
  'simulator/cluster-clients-containers.ts': ['simulator/nodes', 'simulator/api'],
  'simulator/cluster-clients-worker.ts': ['simulator/cluster-clients.ts', 'simulator/cluster-clients-containers.ts'],
  'simulator/cluster-clients-thread.ts': ['simulator/cluster-clients.ts', 'simulator/cluster-clients-worker.ts', 'simulator/cluster-clients-containers.ts', 'simulator/nodes'],
};
/** Entry points and measurement rooms sit on top: they may import any production room. */
const TOP = new Set(['simulator/index.ts', 'simulator/main.ts', 'simulator/compiled.ts', 'simulator/bench', 'simulator/testing', 'simulator/fuzz']);

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  line: number;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.ts')) out.push(relative(REPO, p));
  }
  return out;
}

// Tests: `*.test.ts` (npm test), `*.verify.ts` (npm run suites:verify, the long verdict runs) and test data.
const isTest = (f: string) => f.endsWith('.test.ts') || f.endsWith('.verify.ts') || /(^|\/)testdata\//.test(f);
const isTestHelper = (f: string) => f.startsWith('simulator/testing/') || /\/testing\//.test(f);

function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'spec-tables' || parts[0] === 'suites') return parts[0];
  return parts.length > 2 ? `simulator/${parts[1]}` : file;
}

// `import x from '…'`, `export … from '…'`, `import('…')` and a bare `import '…'` (loaded for its effect).
const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)|^\s*import\s+'(\.[^']+)'/gm;

function edgesOf(file: string): Edge[] {
  const src = readFileSync(join(REPO, file), 'utf8');
  const edges: Edge[] = [];
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4] ?? m[5];
    const to = relative(REPO, resolve(REPO, dirname(file), spec));
    edges.push({ from: file, to, typeOnly: Boolean(m[2]), line: src.slice(0, m.index).split('\n').length });
  }
  return edges;
}

const files = [...walk(join(REPO, 'simulator')), ...walk(join(REPO, 'spec-tables')), ...walk(join(REPO, 'suites'))];
const production = files.filter((f) => !isTest(f) && !isTestHelper(f));
const edges = production.flatMap(edgesOf);

test('imports between rooms point one way (down the floors)', () => {
  const bad: string[] = [];
  for (const e of edges) {
    const from = roomOf(e.from);
    const to = roomOf(e.to);
    if (from === to || TOP.has(from)) continue;
    if (from === 'suites') {
      // The harness may use the simulator's codecs as tools, start it embedded, and share its type
      // vocabulary; never its models of expected behaviour (see suites/README.md).
      // The Reflect polyfill @peculiar/x509 needs is a tool too (it carries no behaviour of the API).
      const ok =
        to === 'spec-tables' ||
        to === 'simulator/util' ||
        to === 'simulator/codec' ||
        e.to === 'simulator/cluster.ts' ||
        // The loader of compiled builds and the transform of their chunks (the suites' command runs from one, as
        // the simulator's does): tools that carry no behaviour of the API.
        e.to === 'simulator/compiled.ts' ||
        e.to === 'scripts/commonjs-chunks.mjs' ||
        e.to === 'scripts/esbuild-helpers.mjs' ||
        e.to === 'simulator/api/reflect-shim.ts' ||
        (to === 'simulator/api' && e.typeOnly);
      if (!ok) bad.push(`${e.from}:${e.line} imports ${e.to}`);
      continue;
    }
    // The daemon's entry point is an entry point, like simulator/index.ts.
    if (e.from === 'simulator/controllers/index.ts') continue;
    if (to === 'simulator/util') continue;
    const allowed = ALLOWED[from];
    assert.ok(allowed, `${e.from}: room ${from} is not in the layout table of simulator/layout.test.ts (add it where it belongs)`);
    if (!allowed.includes(to)) bad.push(`${e.from}:${e.line} (${from}) imports ${e.to} (${to})`);
  }
  assert.deepEqual(bad, [], `imports that run up a floor or sideways:\n${bad.join('\n')}`);
});

test('no production file imports a test helper or a test', () => {
  const bad = edges.filter((e) => !e.from.startsWith('simulator/bench/') && (isTest(e.to) || isTestHelper(e.to))).map((e) => `${e.from}:${e.line} imports ${e.to}`);
  assert.deepEqual(bad, []);
});

/** The import cycles among the given edges, each as the files around it. */
function cyclesOf(among: Edge[]): string[] {
  const graph = new Map<string, string[]>();
  for (const e of among) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  const state = new Map<string, 1 | 2>();
  const cycles: string[] = [];
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 1);
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 1) cycles.push([...stack.slice(stack.indexOf(t)), t].join(' → '));
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

test('no import cycles between production files (type-only imports excepted)', () => {
  assert.deepEqual(cyclesOf(edges.filter((e) => !e.typeOnly)), []);
});

// ---------------------------------------------------------------------------------------------------------
// Inside controllers/: the daemon's configuration (config/) is read by everything and reads none of it; the
// simulated cloud (cloud/) and the kit (kit/) the loops share sit above it; the loops (one file per control loop,
// plus the parts of one loop) above those; the daemon command (daemon/, with the registry of controllers) on top
// (index.ts, the daemon's entry point, above all). A loop imports no other loop's file: what two loops share is
// in kit/. Nor does a controllers/ or nodes/ file branch on a kind name (`kind === 'Deployment'`): per-kind
// behaviour is declared in a table beside the kind or resolved from the API's resource table.

const CONTROLLERS = 'simulator/controllers/';
/** The floors inside controllers/, lowest first; a file may import its own floor and those below. */
const CONTROLLER_FLOORS = ['config', 'cloud', 'kit', 'loops', 'daemon', 'entry'] as const;

function controllerFloorOf(file: string): (typeof CONTROLLER_FLOORS)[number] {
  const rest = file.slice(CONTROLLERS.length);
  if (rest === 'index.ts') return 'entry';
  const dir = rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : '';
  if (dir === '') return 'loops';
  assert.ok((CONTROLLER_FLOORS as readonly string[]).includes(dir), `${file}: folder ${dir} of controllers/ is not a floor of simulator/layout.test.ts (add it where it belongs)`);
  return dir as (typeof CONTROLLER_FLOORS)[number];
}

const controllerEdges = edges.filter((e) => e.from.startsWith(CONTROLLERS) && e.to.startsWith(CONTROLLERS));

test('controllers/: imports point down its floors (config → cloud → kit → loops → daemon command)', () => {
  const bad = controllerEdges
    .filter((e) => CONTROLLER_FLOORS.indexOf(controllerFloorOf(e.to)) > CONTROLLER_FLOORS.indexOf(controllerFloorOf(e.from)))
    .map((e) => `${e.from}:${e.line} (${controllerFloorOf(e.from)}) imports ${e.to} (${controllerFloorOf(e.to)})`);
  assert.deepEqual(bad, [], `imports that run up a floor inside controllers/:\n${bad.join('\n')}`);
});

test('controllers/: no loop imports another loop (the controllers the registry starts)', () => {
  // The loops are the files daemon/registry.ts imports; the other top-level files are parts of one loop.
  const loops = new Set(edges.filter((e) => e.from === `${CONTROLLERS}daemon/registry.ts` && controllerFloorOf(e.to) === 'loops').map((e) => e.to));
  assert.ok(loops.size > 20, `daemon/registry.ts should import every loop (found ${loops.size})`);
  const bad = controllerEdges.filter((e) => controllerFloorOf(e.from) === 'loops' && loops.has(e.to) && e.to !== e.from).map((e) => `${e.from}:${e.line} imports ${e.to}`);
  assert.deepEqual(bad, [], `loops importing another loop's file (move what they share to kit/):\n${bad.join('\n')}`);
});

test('controllers/: no import cycle, type-only imports included', () => {
  assert.deepEqual(cyclesOf(controllerEdges), []);
});

test('controllers/ and nodes/ build no URL by hand and branch on no kind name', () => {
  // A recycler pod template file must decode as a Pod: a check of the file's format, not per-kind behaviour.
  const allowedKindChecks = new Set(['simulator/controllers/config/volume-plugins.ts']);
  const bad: string[] = [];
  for (const file of production.filter((f) => f.startsWith(CONTROLLERS) || f.startsWith('simulator/nodes/'))) {
    const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      if (/^\s*(\/\/|\*)/.test(text)) return;
      if (/['`]\/apis?\/[^'`]/.test(text) || /['`]\/apis?['`]/.test(text)) bad.push(`${file}:${i + 1}: a hand-built API path (use client/resource-paths.ts)`);
      if (/\bkind\s*[!=]==?\s*'[A-Z]/.test(text) && !allowedKindChecks.has(file)) bad.push(`${file}:${i + 1}: branches on a kind name`);
    });
  }
  assert.deepEqual(bad, []);
});

/**
 * The floors inside a room, top first: each a list of folders ("handlers/") and files ("context.ts") relative to
 * the room; a file named by no floor is on the top one ('*'). A file may import its own floor and the floors below,
 * never one above (value or type imports). The controllers' floors join this table the same way.
 */
const INNER_FLOORS: Record<string, string[][]> = {
  'simulator/server': [
    // The app and what composes the server: http/ (body, dispatch, reply), start, the server's own loops.
    ['*'],
    // The subresources' storage (one file per subresource, the table), the streaming protocols and proxy of
    // exec, attach, portforward and proxy, and the computed metrics API and component statuses.
    ['subresources/', 'streams/', 'metrics-api.ts', 'component-statuses.ts'],
    // The verb handlers, and the access and token reviews they create.
    ['handlers/', 'access-review.ts', 'token-review.ts'],
    // The registry: every read and write of storage, system metadata, store errors.
    ['registry/'],
    // What every floor above uses: the request context, errors, codecs of the wire, the watch fan-out, the
    // caches, admission types, the security layer the context carries, Tables.
    [
      'context.ts', 'errors.ts', 'serializers.ts', 'media-types.ts', 'query-params.ts', 'shape-check.ts', 'encoded-cache.ts',
      'watch-hub.ts', 'watch-cache.ts', 'object-cache.ts', 'fair-queue.ts', 'turn-writes.ts', 'request-info.ts', 'admission/attributes.ts',
      'allocators/', 'authentication/', 'authorization/', 'tls/', 'table/',
    ],
  ],
};

/** Rooms in which no two files import each other, even through type-only imports. */
const CYCLE_FREE = ['simulator/server', 'simulator/api'];

/** Rooms whose files (but api/kinds/, where per-kind behaviour is declared) never branch on a kind name. */
const KIND_BLIND = ['simulator/server', 'simulator/api'];

function floorOf(room: string, file: string): number {
  const inner = file.slice(room.length + 1);
  const floors = INNER_FLOORS[room];
  for (let i = 0; i < floors.length; i++) {
    if (floors[i].some((p) => (p.endsWith('/') ? inner.startsWith(p) : inner === p))) return i;
  }
  return floors.findIndex((f) => f.includes('*'));
}

test('imports inside a room point down its inner floors', () => {
  const bad: string[] = [];
  for (const room of Object.keys(INNER_FLOORS)) {
    for (const e of edges) {
      if (!e.from.startsWith(room + '/') || !e.to.startsWith(room + '/')) continue;
      const from = floorOf(room, e.from);
      const to = floorOf(room, e.to);
      if (to < from) bad.push(`${e.from}:${e.line} (floor ${from}) imports ${e.to} (floor ${to}, above)`);
    }
  }
  assert.deepEqual(bad, [], `imports that run up a floor inside a room:\n${bad.join('\n')}`);
});

test('no import cycles inside the cycle-free rooms, type-only imports included', () => {
  const cycles = CYCLE_FREE.flatMap((room) => cyclesOf(edges.filter((e) => e.from.startsWith(room + '/') && e.to.startsWith(room + '/'))));
  assert.deepEqual(cycles, []);
});

/** A comparison of something's kind with a kind's name (`x.kind === 'Pod'`, `'Pod' !== kind`). */
const KIND_BRANCH = /\bkind\s*[!=]==?\s*'[A-Z][A-Za-z0-9]*'|'[A-Z][A-Za-z0-9]*'\s*[!=]==?\s*[\w.?]*\bkind\b/g;

test('no file outside api/kinds/ branches on a kind name (per-kind behaviour is declared beside the kind)', () => {
  const bad: string[] = [];
  for (const f of production) {
    if (!KIND_BLIND.some((r) => f.startsWith(r + '/')) || f.startsWith('simulator/api/kinds/')) continue;
    const src = readFileSync(join(REPO, f), 'utf8');
    for (const m of src.matchAll(KIND_BRANCH)) bad.push(`${f}:${src.slice(0, m.index).split('\n').length}: ${m[0]}`);
  }
  assert.deepEqual(bad, [], `branches on a kind name outside api/kinds/:\n${bad.join('\n')}`);
});
