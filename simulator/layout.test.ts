// The house rules of the source tree, checked from the files themselves (see the root README's "Design"):
// imports point one way — entry points → cluster.ts → (server | controllers | nodes) → client →
// (codec, patch, storage, openapi) → api → spec-tables → util —, no production file imports a test helper or a test,
// and there is no import cycle between production files. A new file that breaks a rule fails here with the
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
  'simulator/cluster.ts': ['simulator/server', 'simulator/controllers', 'simulator/nodes', 'simulator/client', 'simulator/storage', 'simulator/api', 'simulator/codec', 'spec-tables'],
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

const isTest = (f: string) => f.endsWith('.test.ts') || /(^|\/)testdata\//.test(f);
const isTestHelper = (f: string) => f.startsWith('simulator/testing/') || /\/testing\//.test(f);

function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'spec-tables' || parts[0] === 'suites') return parts[0];
  return parts.length > 2 ? `simulator/${parts[1]}` : file;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/gm;

function edgesOf(file: string): Edge[] {
  const src = readFileSync(join(REPO, file), 'utf8');
  const edges: Edge[] = [];
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4];
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

test('no import cycles between production files (type-only imports excepted)', () => {
  const graph = new Map<string, string[]>();
  for (const e of edges) if (!e.typeOnly) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
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
  assert.deepEqual(cycles, []);
});
