// The package's main entry (`import { startSimulator } from 'cluster-api-conformance'`, or require): the simulator
// in this process, its errors, and the client config helpers. Every export has its type written out, so that the
// declaration file (scripts/build-package.mjs) needs only simulator/launch/types.ts and errors.ts, not the tree.

import { startSimulator as start } from '../simulator/launch/index.ts';
import { packageVersion as version, SIMULATED_API_VERSION as apiVersion } from '../simulator/launch/version.ts';
import { mergeClientConfig as merge, userKubeconfigPath as userPath } from '../simulator/launch/client-config-file.ts';
import { renderKubeconfig as render } from '../simulator/codec/kubeconfig.ts';
import type { Simulator, SimulatorOptions } from '../simulator/launch/types.ts';
import type { ClientConfigFields } from '../simulator/codec/kubeconfig-fields.ts';

export { SimulatorError, SimulatorOptionError, SimulatorStartError, ManifestLoadError } from '../simulator/launch/errors.ts';
export type { Simulator, SimulatorOptions } from '../simulator/launch/types.ts';
export type { ClientConfigFields } from '../simulator/codec/kubeconfig-fields.ts';

/**
 * Starts a simulated cluster in this process: by default what the `cluster-simulator` command starts (the API
 * server, the controller daemon and three nodes) on a free port, with a client config written to a private
 * temporary directory. Takes the command's options by the same names in camelCase (`kubeconfigOut`, `load`,
 * `noControllers`, ...); `{ noControllers: true, nodes: 0 }` is the API server alone. Throws SimulatorOptionError
 * for a bad option and SimulatorStartError (ManifestLoadError for `load`) when it cannot start.
 */
export const startSimulator: (options?: SimulatorOptions) => Promise<Simulator> = start;

/** The package's version (package.json). */
export const packageVersion: () => string = version;

/** The Kubernetes API version the simulator reproduces. */
export const SIMULATED_API_VERSION: string = apiVersion;

/** A kubeconfig (YAML) with one cluster, user and context, made current. */
export const renderKubeconfig: (fields: ClientConfigFields) => string = render;

/** The kubeconfig kubectl writes to: the first file of $KUBECONFIG, else ~/.kube/config. */
export const userKubeconfigPath: (env?: Record<string, string | undefined>) => string = userPath;

/**
 * Adds the cluster, user and context `name` of the kubeconfig text `ours` to the kubeconfig file at `path` and makes
 * it current; the function returned takes them out again (what `kubeconfigMerge` does).
 */
export const mergeClientConfig: (path: string, ours: string, name: string) => () => void = merge;
