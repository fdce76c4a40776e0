#!/usr/bin/env node
// The `cluster-conformance` command of the installed package: the conformance suites (lib/suites.ts runs
// suites/index.ts under tsx), with the suites' exit code. In the repository, `npx tsx suites` is the same command.
import { runConformance } from '../dist/suites.mjs';

const { exitCode } = await runConformance(process.argv.slice(2));
process.exit(exitCode);
