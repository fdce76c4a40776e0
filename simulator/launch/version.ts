// What `--version` prints: the package's own version (package.json, read from disk so that the sources under tsx
// and the built dist/ files agree) and the API version the simulator answers /version with.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The Kubernetes API version this simulator reproduces (server/app.ts answers /version with v1.9.0-simulator). */
export const SIMULATED_API_VERSION = 'v1.9.0';

let cached: string | undefined;

/** The version field of the package.json at the repository (package) root. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string }).version;
  return cached;
}

export function versionText(command: string): string {
  return `${command} ${packageVersion()} (Kubernetes API ${SIMULATED_API_VERSION}, simulated)\n`;
}
