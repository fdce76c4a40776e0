// Projections that make a server's answer comparable with a model's: only the fields the suites generate
// are kept (a server adds defaults such as imagePullPolicy or a port's protocol after every write), empty
// and absent are the same (omitempty on the wire), and lists merged by a patch merge key are sorted by that
// key, because merging does not keep order (spec 1.8).
import { canonicalJson, isObject, type JsonObject, type JsonValue } from './json.ts';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

function byKey<T extends JsonObject>(list: T[], key: string): T[] {
  return [...list].sort((a, b) => canonicalJson(a[key]).localeCompare(canonicalJson(b[key])));
}

function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.length > 0 ? v.map(String) : undefined;
}

function clean(o: Record<string, JsonValue | undefined>): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JsonObject;
}

/** A container reduced to the generated fields; keyed lists sorted by their merge keys. */
export function projectContainer(c: JsonObject, keys: { env: string; ports: string; volumeMounts: string }): JsonObject {
  return clean({
    name: str(c.name),
    image: str(c.image),
    args: strings(c.args),
    command: strings(c.command),
    env: byKey(list(c.env).map((e) => clean({ name: str(e.name), value: str(e.value) })), keys.env),
    ports: byKey(list(c.ports).map((p) => clean({ containerPort: typeof p.containerPort === 'number' ? p.containerPort : undefined })), keys.ports),
    volumeMounts: byKey(
      list(c.volumeMounts).map((m) => clean({ mountPath: str(m.mountPath), name: str(m.name), readOnly: m.readOnly === true ? true : undefined })),
      keys.volumeMounts,
    ),
  });
}

export function projectContainers(v: unknown, keys: { containers: string; env: string; ports: string; volumeMounts: string }): JsonObject[] {
  return byKey(list(v).map((c) => projectContainer(c, keys)), keys.containers);
}

/** Conditions of the given types, reduced to type/status/reason/message, sorted by the merge key. */
export function projectConditions(v: unknown, types: readonly string[], key: string): JsonObject[] {
  return byKey(
    list(v)
      .filter((c) => typeof c.type === 'string' && types.includes(c.type))
      .map((c) => clean({ type: str(c.type), status: str(c.status), reason: str(c.reason), message: str(c.message) })),
    key,
  );
}

/** A string map where absent and empty are the same. */
export function stringMap(v: unknown): Record<string, string> {
  return isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : {};
}
