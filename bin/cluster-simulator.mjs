#!/usr/bin/env node
// The `cluster-simulator` command of the installed package: the built simulator CLI (dist/cluster-simulator.cjs, made
// by scripts/build-package.mjs from simulator/main.ts). In the repository, `npx tsx simulator` runs the same command.
// Required, not imported: an import of CommonJS has node lex the whole bundle for its export names first.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('../dist/cluster-simulator.cjs');
