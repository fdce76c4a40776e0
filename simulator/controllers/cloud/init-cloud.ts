// The daemon's cloud set-up at start, as the 1.9 daemon does it before any controller runs:
// - --cloud-provider: "" (none) and "external" (the cloud loops run in another process) give no cloud;
//   "simulated" gives the simulated cloud configured by --cloud-config (a missing or malformed file is a bad
//   command line: exit 2 naming --cloud-config); any other name ends the daemon the way the real one ends,
//   `error building controller context: cloud provider could not be initialized: unknown cloud provider "x"`,
//   with glog's fatal exit code 255;
// - --cloud-a-container-registry-config and --cloud-b-json-key, when set, must be readable JSON objects (exit 2
//   naming the option otherwise); /configz shows which were loaded (never their contents).

import { readFileSync } from 'node:fs';
import { UsageError, type DaemonOptions } from '../config/options.ts';
import { CLOUD_PROVIDER_NAME, SimulatedCloud, loadCloudConfig } from './simulated-cloud.ts';

/** A fatal start error: printed as a glog F line, exit code 255 (glog.Fatalf). */
export class FatalError extends Error {
  readonly exitCode = 255;
}

export const CREDENTIAL_OPTIONS = ['--cloud-a-container-registry-config', '--cloud-b-json-key'] as const;

export interface CloudSetup {
  cloud: SimulatedCloud | undefined;
  /** The /configz "cloud" section. */
  describe(): Record<string, unknown>;
}

function readCredential(option: string, path: string): { file: string; keys: number } {
  const bad = (detail: string) => new UsageError(`invalid argument ${JSON.stringify(path)} for ${JSON.stringify(option)} flag: ${detail}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw bad(`cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw bad(`not JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('expected a JSON object');
  return { file: path, keys: Object.keys(doc).length };
}

export function initCloud(o: DaemonOptions, log: (line: string) => void): CloudSetup {
  const credentials: Record<string, { file: string; keys: number; loaded: true } | null> = {};
  for (const opt of CREDENTIAL_OPTIONS) {
    const path = o.string(opt);
    credentials[opt.slice(2)] = path ? { ...readCredential(opt, path), loaded: true } : null;
  }
  const provider = o.string('--cloud-provider');
  const configFile = o.string('--cloud-config');
  let cloud: SimulatedCloud | undefined;
  if (provider === CLOUD_PROVIDER_NAME) {
    try {
      cloud = new SimulatedCloud(loadCloudConfig(configFile));
    } catch (err) {
      throw new UsageError(`invalid argument ${JSON.stringify(configFile)} for "--cloud-config" flag: ${(err as Error).message}`);
    }
    log(`cloud provider "${provider}"${configFile ? ` from ${configFile}` : ' with its defaults'}: ${cloud.config.loadBalancerPool.length} load balancer address(es), region ${cloud.config.region}`);
  } else if (provider === 'external') {
    log('cloud provider "external": the cloud loops (service, route) are left to an external cloud controller manager');
  } else if (provider !== '') {
    throw new FatalError(`error building controller context: cloud provider could not be initialized: unknown cloud provider ${JSON.stringify(provider)}`);
  }
  return {
    cloud,
    describe: () => ({
      provider: provider || null,
      configFile: configFile || null,
      credentials,
      ...(cloud ? { region: cloud.config.region, loadBalancerPool: cloud.config.loadBalancerPool.length, endpoints: ['/cloud/routes', '/cloud/loadbalancers', '/cloud/instances'] } : {}),
    }),
  };
}
