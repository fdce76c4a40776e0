// How a field merges under strategic merge patch and what shape it has. The patch engine, strict field
// validation and the OpenAPI documents read field shapes through this interface, so that merge keys are
// declared once (beside the type definitions) rather than in each consumer.

export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

export interface FieldSchema {
  /** JSON shape of the field. */
  type: 'object' | 'array' | 'map' | 'string' | 'integer' | 'number' | 'boolean' | 'int-or-string' | 'time' | 'bytes' | 'any';
  /** For 'object' fields and for elements of arrays/maps of objects. */
  schema?: TypeSchema;
  /** For arrays and maps: the element's type. */
  elementType?: FieldSchema['type'];
  /**
   * The value's encoding where JSON alone does not say it (for arrays and maps: of each element): the integer
   * width of integer fields (ranges are validated, api/validation/encodable.ts), and Quantity and Duration strings
   * (grammar checked when the body is decoded).
   */
  format?: ValueFormat;
  /** x-kubernetes-patch-strategy */
  patchStrategy?: PatchStrategy;
  /** x-kubernetes-patch-merge-key */
  patchMergeKey?: string;
}

/** 'microtime' marks a MicroTime field (microsecond precision); other 'time' fields are metav1.Time (seconds). */
export type ValueFormat = 'int32' | 'int64' | 'uint32' | 'uint64' | 'quantity' | 'duration' | 'microtime';

export interface TypeSchema {
  /** Fully qualified type name, e.g. "io.k8s.api.core.v1.Container". */
  readonly name: string;
  /** The field of this type with that JSON name, or undefined when the type has no such field. */
  field(jsonName: string): FieldSchema | undefined;
  /** All JSON field names, in declaration order. */
  fieldNames(): string[];
}
