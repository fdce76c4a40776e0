// The volume plugin settings of the daemon (1.9 cmd/kube-controller-manager/app/plugins.go), read once at start:
// - the recycler of each recycling plugin (host path, NFS): a pod template (--pv-recycler-pod-template-filepath-*,
//   or the built-in busybox scrubber) and its active deadline, max(minimum, increment * whole Gi of the volume),
//   computed exactly as the real CalculateTimeoutForVolume does (integer Gi, rounded down);
// - the FlexVolume plugins: each folder `<vendor>~<driver>` of --flex-volume-plugin-dir is the driver
//   `<vendor>/<driver>` (a missing folder means none, as for the real prober).
// A template that cannot be read, is empty, is not a Pod or has no volume is a bad command line (exit 2 naming
// the option: option-rules.ts).

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import type { KubeObject } from '../../api/meta.ts';
import type { DaemonOptions } from './options.ts';
import { quantityBytes } from '../../api/kinds/volumes.ts';

const GI = 2 ** 30;

export class RecyclerTemplateError extends Error {}

/** activeDeadlineSeconds of a recycler pod for a volume of `capacity` (CalculateTimeoutForVolume). */
export function recyclerDeadlineSeconds(minimumTimeout: number, timeoutIncrement: number, capacity: unknown): number {
  const bytes = quantityBytes(capacity) ?? 0;
  const timeout = Math.floor(bytes / GI) * timeoutIncrement;
  return timeout < minimumTimeout ? minimumTimeout : timeout;
}

/** The built-in recycler pod (NewPersistentVolumeRecyclerPodTemplate): a busybox that empties /scrub. */
export function defaultRecyclerPod(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'pv-recycler-', namespace: 'default' },
    spec: {
      activeDeadlineSeconds: 60,
      restartPolicy: 'Never',
      volumes: [{ name: 'vol' }],
      containers: [
        {
          name: 'pv-recycler',
          image: 'busybox:1.27',
          command: ['/bin/sh'],
          args: ['-c', 'test -e /scrub && rm -rf /scrub/..?* /scrub/.[!.]* /scrub/*  && test -z "$(ls -A /scrub)" || exit 1'],
          volumeMounts: [{ name: 'vol', mountPath: '/scrub' }],
        },
      ],
    },
  };
}

/** Reads a recycler pod template file (YAML or JSON); throws RecyclerTemplateError or a file system error. */
export function loadRecyclerTemplate(path: string): KubeObject {
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '') throw new RecyclerTemplateError(`file was empty: ${path}`);
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new RecyclerTemplateError(`failed decoding file: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new RecyclerTemplateError('failed decoding file: not an object');
  const pod = doc as KubeObject & { spec?: { volumes?: unknown } };
  if (pod.kind !== undefined && pod.kind !== 'Pod') throw new RecyclerTemplateError(`failed decoding file: kind ${String(pod.kind)} is not a Pod`);
  const volumes = pod.spec?.volumes;
  if (!Array.isArray(volumes) || volumes.length === 0) throw new RecyclerTemplateError(`does not contain any volume(s)`);
  pod.metadata ??= {};
  return pod;
}

export interface RecyclerConfig {
  minimumTimeout: number;
  timeoutIncrement: number;
  template: KubeObject;
  /** The template file, or undefined for the built-in one. */
  templateFile?: string;
}

export interface VolumePluginConfig {
  hostPath: RecyclerConfig;
  nfs: RecyclerConfig;
}

/** The recyclers of the host-path and NFS plugins from the options (templates read now). */
export function volumePluginConfig(o: DaemonOptions): VolumePluginConfig {
  const recycler = (min: string, inc: string, file: string): RecyclerConfig => {
    const path = o.string(file);
    return {
      minimumTimeout: o.int(min),
      timeoutIncrement: o.int(inc),
      template: path ? loadRecyclerTemplate(path) : defaultRecyclerPod(),
      templateFile: path || undefined,
    };
  };
  return {
    hostPath: recycler('--pv-recycler-minimum-timeout-hostpath', '--pv-recycler-timeout-increment-hostpath', '--pv-recycler-pod-template-filepath-hostpath'),
    nfs: recycler('--pv-recycler-minimum-timeout-nfs', '--pv-recycler-increment-timeout-nfs', '--pv-recycler-pod-template-filepath-nfs'),
  };
}

/** FlexVolume drivers found in the plugin folder: `<vendor>~<driver>` folders, as `<vendor>/<driver>`. */
export function scanFlexPlugins(dir: string): { dir: string; drivers: string[]; problem?: string } {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    return { dir, drivers: [], problem: `cannot read the FlexVolume plugin directory: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
  const drivers: string[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    try {
      if (!statSync(join(dir, name)).isDirectory()) continue;
    } catch {
      continue;
    }
    drivers.push(name.replace(/~/g, '/'));
  }
  return { dir, drivers };
}
