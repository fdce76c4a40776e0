// How the strategic merge engine reads field shapes from a TypeSchema: which schema governs the members of
// a map value, and how an array field merges. Fields the schema does not know are "unknown": their maps
// merge key by key and their lists are replaced, as the real server does for fields without metadata.
import type { FieldSchema, TypeSchema } from '../api/schema.ts';

/** How to look up the members of an object value. */
export type MapContext =
  | { kind: 'struct'; schema: TypeSchema }
  | { kind: 'map'; element: FieldSchema }
  | { kind: 'unknown' };

export const UNKNOWN: MapContext = { kind: 'unknown' };

export function contextForType(schema: TypeSchema | undefined): MapContext {
  return schema ? { kind: 'struct', schema } : UNKNOWN;
}

/** The field describing the member `key` of an object in this context. */
export function memberField(ctx: MapContext, key: string): FieldSchema | undefined {
  switch (ctx.kind) {
    case 'struct':
      return ctx.schema.field(key);
    case 'map':
      return ctx.element;
    case 'unknown':
      return undefined;
  }
}

/** The context for the members of an object stored in a field of this shape. */
export function contextForField(field: FieldSchema | undefined): MapContext {
  if (!field) return UNKNOWN;
  if (field.type === 'object') return contextForType(field.schema);
  if (field.type === 'map') return { kind: 'map', element: elementField(field) };
  return UNKNOWN;
}

/** The field describing each element of an array (or each value of a map) field. */
export function elementField(field: FieldSchema): FieldSchema {
  const element: FieldSchema = { type: field.elementType ?? (field.schema ? 'object' : 'any') };
  if (field.schema) element.schema = field.schema;
  return element;
}

export interface ListStrategy {
  merge: boolean;
  mergeKey: string | undefined;
}

export function listStrategy(field: FieldSchema | undefined): ListStrategy {
  const strategies = field?.patchStrategy?.split(',') ?? [];
  return { merge: strategies.includes('merge'), mergeKey: field?.patchMergeKey || undefined };
}

export function isReplaceStrategy(field: FieldSchema | undefined): boolean {
  return field?.patchStrategy?.split(',').includes('replace') ?? false;
}
