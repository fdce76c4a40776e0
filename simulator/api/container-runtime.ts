// What the API server asks of the containers of simulated pods when a client execs, attaches or forwards a port:
// the seam between the streaming protocols (simulator/server/streams/) and what a container does (simulator/nodes/containers/,
// handed in by simulator/cluster.ts as `ServerContext.containers`). Without one the server answers these
// subresources with a 400 saying the node runs no containers, as before.

import type { Duplex, Readable, Writable } from 'node:stream';
import type { KubeObject } from './meta.ts';

/** A terminal size, as the resize channel carries it. */
export interface TerminalSize {
  Width: number;
  Height: number;
}

/** The process side of a stream session: what the client sends and where the output goes. */
export interface ProcessIO {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** Registers a listener for the client's terminal size changes (TTY only). */
  onResize(fn: (size: TerminalSize) => void): void;
  /** Aborted when the client goes away: whatever runs for it must stop. */
  signal: AbortSignal;
}

/** Reads objects the container's environment refers to (ConfigMaps and Secrets of envFrom and valueFrom). */
export type ObjectLookup = (resource: 'configmaps' | 'secrets', namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ContainerTarget {
  pod: KubeObject;
  container: string;
  lookup: ObjectLookup;
}

export interface ContainerRuntime {
  /** Runs a command in the container; resolves with its exit code. */
  exec(target: ContainerTarget, command: string[], io: ProcessIO): Promise<number>;
  /** Joins the container's main process; resolves when the client detaches (undefined) or it exits (its code). */
  attach(target: ContainerTarget, io: ProcessIO): Promise<number | undefined>;
  /**
   * A connection to a port of the pod (any container's). Rejects with an Error whose message is what the client is
   * told when nothing listens there.
   */
  connect(pod: KubeObject, port: number): Promise<Duplex>;
  /** The text of the log file configured for a container (the simulator's config file), if any. */
  logFile?(pod: KubeObject, container: string): string | undefined;
  /**
   * A file of the container's current instance as it is now (what exec wrote there, else the files it started
   * with); undefined when there is no such file. The kubelet reads the termination-message file through it.
   */
  readFile?(pod: KubeObject, container: string, path: string): Buffer | undefined;
  /** Stops everything and forgets every container. */
  close?(): void;
}
