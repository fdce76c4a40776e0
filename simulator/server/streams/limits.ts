// Bounds on streaming sessions: at most `total` upgraded connections (exec, attach, port-forward) at once in the
// server, and at most `perConnection` streams in one SPDY session. Beyond the total a new upgrade is refused
// with 429 before the protocol switch; beyond the per-connection bound a new stream is refused (RST_STREAM
// REFUSED_STREAM). The real kubelet bounds neither, but one JavaScript thread serves every simulated node.

export interface StreamLimits {
  readonly total: number;
  readonly perConnection: number;
  /** Takes a slot; the function gives it back (once). Undefined when none is free. */
  acquire(): (() => void) | undefined;
  readonly active: number;
}

export function streamLimits(total = 256, perConnection = 64): StreamLimits {
  let active = 0;
  return {
    total,
    perConnection,
    get active() {
      return active;
    },
    acquire() {
      if (active >= total) return undefined;
      active++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        active--;
      };
    },
  };
}
