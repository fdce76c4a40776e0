// undici (about a hundred modules) loaded when the aggregator first calls a backend, not with the API server's start:
// most clusters have no aggregated APIService, and the installed command's first answer would otherwise wait for it
// (simulator/bench/README.md, startup). Synchronous, for the places that make an Agent outside an async function.
import { createRequire } from 'node:module';

let loaded: typeof import('undici') | undefined;

export function undici(): typeof import('undici') {
  return (loaded ??= createRequire(import.meta.url)('undici') as typeof import('undici'));
}
