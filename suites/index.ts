// Entry point of `npx tsx suites`: the conformance harness CLI (see suites/README.md).
import { main } from './cli/main.ts';

const code = await main(process.argv.slice(2));
// Open keep-alive sockets or a stopped simulator must not hold the exit.
process.exit(code);
