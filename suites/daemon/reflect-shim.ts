// @peculiar/x509 registers its classes with tsyringe, which needs the Reflect metadata functions of the
// reflect-metadata polyfill. The harness keeps its own copy of the few it uses (a WeakMap keeps them): it may not
// import the simulator's internals (simulator/layout.test.ts), and adds no dependency. Installs nothing when some
// other module (the embedded simulator's) already did.

type Key = unknown;
type Target = object;
const R = Reflect as unknown as Record<string, unknown>;
if (typeof R.getMetadata !== 'function') {
  const store = new WeakMap<Target, Map<Key, unknown>>();
  const own = (t: Target) => {
    let m = store.get(t);
    if (!m) store.set(t, (m = new Map()));
    return m;
  };
  R.defineMetadata = (k: Key, v: unknown, t: Target) => void own(t).set(k, v);
  R.getOwnMetadata = (k: Key, t: Target) => store.get(t)?.get(k);
  R.hasOwnMetadata = (k: Key, t: Target) => store.get(t)?.has(k) ?? false;
  R.getMetadata = (k: Key, t: Target): unknown => {
    for (let o: Target | null = t; o; o = Object.getPrototypeOf(o)) if (store.get(o)?.has(k)) return store.get(o)!.get(k);
    return undefined;
  };
  R.hasMetadata = (k: Key, t: Target) => R.getMetadata !== undefined && (R.getMetadata as (k: Key, t: Target) => unknown)(k, t) !== undefined;
  R.metadata = (k: Key, v: unknown) => (t: Target) => void own(t).set(k, v);
}
export {};
