// Kind-specific rules (defaults, validation) register themselves with the strategy when loaded.

let loaded = false;

export function loadKindRules(): void {
  if (loaded) return;
  loaded = true;
}
