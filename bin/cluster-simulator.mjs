#!/usr/bin/env node
// The `cluster-simulator` command of the installed package: the built simulator CLI (dist/, made by
// scripts/build-package.mjs from simulator/main.ts). In the repository, `npx tsx simulator` runs the same command.
import '../dist/cluster-simulator.mjs';
