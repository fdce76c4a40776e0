// The daemon's feature gates (spec 8.2): stage and default come from the spec-table rows; --feature-gates
// sets some explicitly. As in the 1.9 gate implementation, the special gate AllAlpha=true turns on every alpha
// gate the user did not set explicitly (explicit settings always win, whatever their order on the line).

export interface FeatureGateRowLike {
  id: string;
  name: string;
  stage: string | null;
  default: boolean;
}

export const ALL_ALPHA = 'AllAlpha';

export class UnknownFeatureGateError extends Error {
  constructor(readonly gate: string, known: readonly string[]) {
    super(`unrecognized feature gate: ${gate} (known gates: ${known.join(', ')})`);
  }
}

export interface GateState {
  enabled: boolean;
  stage: string | null;
  default: boolean;
  /** How the value came about: the table default, set on the command line, or turned on by AllAlpha. */
  source: 'default' | 'explicit' | 'AllAlpha';
}

export class FeatureGates {
  private readonly states = new Map<string, GateState>();

  constructor(rows: readonly FeatureGateRowLike[], explicit: Readonly<Record<string, boolean>> = {}) {
    const known = new Map(rows.map((r) => [r.name, r]));
    for (const name of Object.keys(explicit)) {
      if (!known.has(name)) throw new UnknownFeatureGateError(name, [...known.keys()].sort());
    }
    const allAlpha = explicit[ALL_ALPHA] === true;
    for (const row of rows) {
      let state: GateState;
      if (Object.hasOwn(explicit, row.name)) state = { enabled: explicit[row.name], stage: row.stage, default: row.default, source: 'explicit' };
      else if (allAlpha && row.stage === 'alpha') state = { enabled: true, stage: row.stage, default: row.default, source: 'AllAlpha' };
      else state = { enabled: row.default, stage: row.stage, default: row.default, source: 'default' };
      this.states.set(row.name, state);
    }
  }

  /** Whether a gate is on. Asking about a gate the table lacks is a programming error. */
  enabled(name: string): boolean {
    const state = this.states.get(name);
    if (!state) throw new UnknownFeatureGateError(name, [...this.states.keys()].sort());
    return state.enabled;
  }

  /** Gate name -> on/off, sorted by name. */
  effective(): Record<string, boolean> {
    const out: Record<string, boolean> = {};
    for (const name of [...this.states.keys()].sort()) out[name] = this.states.get(name)!.enabled;
    return out;
  }

  /** Gate name -> full state, sorted by name (for /configz). */
  describe(): Record<string, GateState> {
    const out: Record<string, GateState> = {};
    for (const name of [...this.states.keys()].sort()) out[name] = { ...this.states.get(name)! };
    return out;
  }
}
