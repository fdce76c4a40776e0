// Custom resources: the ResourceDef and strategy of each version a CustomResourceDefinition serves. Validation is
// the version's openAPIV3Schema run by ajv (the real server's go-openapi validator answers the same 422 Invalid
// with one cause per field path); defaults, conversions and printing are the generic ones (1.9 had none for
// custom resources). What is served comes and goes with the CRD (server/custom-resources.ts).

import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { KubeObject } from './meta.ts';
import type { ResourceDef, StorageRef } from './registry.ts';
import { registerStrategy, type KindStrategy } from './strategy.ts';
import { invalidValue, required, type FieldError } from './field-errors.ts';
import { effectiveVersions, type Crd, type EffectiveVersion } from './kinds/custom-resource-definition.ts';
import { approximated, hasBigInt } from '../util/int64-json.ts';

// OpenAPI v3 schemas are JSON Schema with a few keywords of their own (nullable, x-kubernetes-*, example...):
// known to ajv as annotations, so a schema written for the real server compiles here. ajv (some 70 modules) is
// loaded by the first CRD schema, not at start-up.
let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (ajvInstance) return ajvInstance;
  const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  const a = new AjvClass({ strict: false, allErrors: true, validateFormats: false });
  for (const k of ['example', 'externalDocs', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type']) {
    if (!a.getKeyword(k)) a.addKeyword({ keyword: k });
  }
  return (ajvInstance = a);
}

/** JSON pointer of ajv (/spec/ports/0/name) as the real server's field path (spec.ports[0].name). */
function fieldPath(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || '<root>';
}

function valueAt(obj: unknown, pointer: string): unknown {
  let cur = obj;
  for (const p of pointer.split('/').slice(1)) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Record<string, unknown>)[p];
  return cur;
}

function toFieldErrors(obj: KubeObject, errors: ErrorObject[]): FieldError[] {
  return errors.map((e) => {
    if (e.keyword === 'required') return required(fieldPath(e.instancePath, String(e.params.missingProperty)));
    const path = fieldPath(e.instancePath);
    return invalidValue(path, valueAt(obj, e.instancePath), `${path} in body ${e.message ?? 'is invalid'}`);
  });
}

function compile(schema: Record<string, unknown> | undefined): ValidateFunction | undefined {
  if (!schema) return undefined;
  try {
    return ajv().compile(schema);
  } catch {
    // A schema ajv cannot compile was refused when the CRD was written (see validateCrdSchemas); never here.
    return undefined;
  }
}

/** Problems of a CRD's schemas, as field errors of the CRD (a schema that cannot be compiled is refused). */
export function validateCrdSchemas(crd: Crd): FieldError[] {
  const errs: FieldError[] = [];
  effectiveVersions(crd.spec).forEach((v, i) => {
    if (!v.schema) return;
    try {
      ajv().compile(v.schema);
    } catch (e) {
      errs.push(invalidValue(`spec.versions[${i}].schema.openAPIV3Schema`, '...', (e as Error).message));
    }
  });
  return errs;
}

// A CRD whose schema ajv cannot compile is refused when written, not when its first instance arrives.
registerStrategy('CustomResourceDefinition', { validate: (obj) => validateCrdSchemas(obj as Crd) });

function strategyFor(v: EffectiveVersion): KindStrategy {
  const check = compile(v.schema);
  const apiVersionErrs = (obj: KubeObject, def: ResourceDef): FieldError[] => {
    const want = `${def.group}/${def.version}`;
    return obj.apiVersion && obj.apiVersion !== want ? [invalidValue('apiVersion', obj.apiVersion, `must be ${want}`)] : [];
  };
  return {
    validate(obj, def) {
      const errs = apiVersionErrs(obj, def);
      // ajv's `integer` and `number` are typeof 'number': an object refused with a BigInt in it (an int64 beyond
      // 2^53, util/int64-json.ts) is checked again with its BigInts as Numbers, which keeps every verdict but the
      // type's (go-openapi sees an int64 there too).
      if (check && !check(obj) && !(hasBigInt(obj) && check(approximated(obj)))) errs.push(...toFieldErrors(obj, check.errors ?? []));
      return errs;
    },
    prepareForCreate(obj, def) {
      // With a status subresource, status is written through /status only (as for built-in kinds).
      if (def.subresources.status) delete obj.status;
    },
    scale: {
      selector(obj) {
        const path = v.subresources.scale?.labelSelectorPath;
        if (!path) return undefined;
        let cur: unknown = obj;
        for (const p of path.split('.').filter(Boolean)) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Record<string, unknown>)[p];
        if (typeof cur !== 'string' || cur === '') return undefined;
        // The path holds a selector string (a=b,c=d); only equality terms map onto matchLabels.
        const matchLabels: Record<string, string> = {};
        for (const term of cur.split(',')) {
          const m = /^\s*([^=!\s]+)\s*==?\s*([^\s]*)\s*$/.exec(term);
          if (m) matchLabels[m[1]] = m[2];
        }
        return { matchLabels };
      },
    },
  };
}

/** Where a CRD's instances are stored, whatever versions it serves: <group>/<plural>. */
export function customResourceStorage(crd: Crd): StorageRef {
  return { storageResource: `${crd.spec.group}/${crd.spec.names.plural}`, namespaced: crd.spec.scope === 'Namespaced' };
}

/** The definitions a CRD serves now: one per served version, sharing one storage (customResourceStorage). */
export function customResourceDefs(crd: Crd): ResourceDef[] {
  const spec = crd.spec;
  const versions = effectiveVersions(spec);
  const storage = versions.find((v) => v.storage) ?? versions[0];
  const names = spec.names;
  return versions
    .filter((v) => v.served)
    .map((v) => {
      const subresources: ResourceDef['subresources'] = {};
      if (v.subresources.status) subresources.status = true;
      if (v.subresources.scale && v.subresources.scale.specReplicasPath === '.spec.replicas') subresources.scale = { apiVersion: 'autoscaling/v1' };
      return {
        group: spec.group,
        version: v.name,
        kind: names.kind,
        resource: names.plural,
        singular: names.singular ?? names.kind.toLowerCase(),
        namespaced: spec.scope === 'Namespaced',
        shortNames: names.shortNames,
        categories: names.categories,
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        subresources,
        storageResource: customResourceStorage(crd).storageResource,
        storageApiVersion: `${spec.group}/${storage.name}`,
        nameRule: 'path-segment',
        tracksGeneration: !!v.subresources.status,
        customResourceDefinition: crd.metadata.name,
        strategy: strategyFor(v),
      } satisfies ResourceDef;
    });
}
