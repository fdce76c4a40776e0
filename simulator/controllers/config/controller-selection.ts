// Which controllers --controllers turns on, exactly as the 1.9 daemon decides it (wire-facts 8):
// scan the list in order, an exact "name" enables, "-name" disables, first match wins; otherwise a controller
// is on only when "*" is in the list and it is not disabled by default (bootstrapsigner, tokencleaner).

export interface ControllerRowLike {
  id: string;
  name: string;
  enabledByDefault: boolean;
}

export class UnknownControllerError extends Error {
  constructor(readonly entry: string) {
    super(`${JSON.stringify(entry)} is not in the list of known controllers`);
  }
}

/** Startup validation: every entry but "*", after one leading "-" is removed, must name a known controller. */
export function validateControllerList(list: readonly string[], known: readonly ControllerRowLike[]): void {
  const names = new Set(known.map((c) => c.name));
  for (const entry of list) {
    if (entry === '*') continue;
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!names.has(name)) throw new UnknownControllerError(name);
  }
}

export function isControllerEnabled(name: string, list: readonly string[], disabledByDefault: ReadonlySet<string>): boolean {
  let star = false;
  for (const entry of list) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && !disabledByDefault.has(name);
}

export interface ControllerSelection {
  /** In table order. */
  enabled: string[];
  disabled: string[];
}

export function selectControllers(list: readonly string[], known: readonly ControllerRowLike[]): ControllerSelection {
  validateControllerList(list, known);
  const disabledByDefault = new Set(known.filter((c) => !c.enabledByDefault).map((c) => c.name));
  const enabled: string[] = [];
  const disabled: string[] = [];
  for (const c of known) (isControllerEnabled(c.name, list, disabledByDefault) ? enabled : disabled).push(c.name);
  return { enabled, disabled };
}
