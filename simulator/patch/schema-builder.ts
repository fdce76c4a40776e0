// Builds a TypeSchema from a plain nested description, so tests (here and elsewhere) can state the few
// fields they care about without the generated schemas. Example:
//   schemaFromObject('PodSpec', {
//     containers: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'name', fields: { name: 'string', args: { type: 'array', elementType: 'string' } } },
//     nodeSelector: { type: 'map', elementType: 'string' },
//   })
import type { FieldSchema, PatchStrategy, TypeSchema } from '../api/schema.ts';

export type FieldType = FieldSchema['type'];

/** A field: either just its type, or its full description. */
export type FieldDescription = FieldType | FieldDescriptionObject;

export interface FieldDescriptionObject {
  /** Defaults to 'object' when `fields` is given. */
  type?: FieldType;
  /** Element type for arrays and maps; defaults to 'object' when `fields` is given. */
  elementType?: FieldType;
  /** Fields of the object, or of each element of an array/map of objects. */
  fields?: TypeDescription;
  /** Name of the nested type (default: parent name + '.' + field name). */
  typeName?: string;
  patchStrategy?: PatchStrategy;
  patchMergeKey?: string;
}

export type TypeDescription = Record<string, FieldDescription>;

const FIELD_TYPES: ReadonlySet<string> = new Set<FieldType>([
  'object', 'array', 'map', 'string', 'integer', 'number', 'boolean', 'int-or-string', 'time', 'bytes', 'any',
]);
const STRATEGIES: ReadonlySet<string> = new Set<PatchStrategy>(['merge', 'replace', 'retainKeys', 'merge,retainKeys']);

class DescribedTypeSchema implements TypeSchema {
  readonly name: string;
  private readonly fields: Map<string, FieldSchema>;

  constructor(name: string, fields: Map<string, FieldSchema>) {
    this.name = name;
    this.fields = fields;
  }

  field(jsonName: string): FieldSchema | undefined {
    return this.fields.get(jsonName);
  }

  fieldNames(): string[] {
    return [...this.fields.keys()];
  }
}

export function schemaFromObject(name: string, description: TypeDescription): TypeSchema {
  const fields = new Map<string, FieldSchema>();
  for (const [fieldName, fieldDescription] of Object.entries(description)) {
    fields.set(fieldName, fieldFromDescription(`${name}.${fieldName}`, fieldDescription));
  }
  return new DescribedTypeSchema(name, fields);
}

function fieldFromDescription(path: string, description: FieldDescription): FieldSchema {
  if (typeof description === 'string') {
    assertFieldType(path, description);
    return { type: description };
  }
  const type = description.type ?? (description.fields ? 'object' : undefined);
  if (type === undefined) throw new TypeError(`schemaFromObject: ${path} needs a type or fields`);
  assertFieldType(path, type);
  const field: FieldSchema = { type };
  if (description.patchStrategy !== undefined) {
    if (!STRATEGIES.has(description.patchStrategy)) {
      throw new TypeError(`schemaFromObject: ${path} has unknown patchStrategy ${JSON.stringify(description.patchStrategy)}`);
    }
    field.patchStrategy = description.patchStrategy;
  }
  if (description.patchMergeKey !== undefined) field.patchMergeKey = description.patchMergeKey;
  if (type === 'array' || type === 'map') {
    const elementType = description.elementType ?? (description.fields ? 'object' : 'any');
    assertFieldType(path, elementType);
    field.elementType = elementType;
  }
  if (description.fields) field.schema = schemaFromObject(description.typeName ?? path, description.fields);
  return field;
}

function assertFieldType(path: string, type: string): asserts type is FieldType {
  if (!FIELD_TYPES.has(type)) throw new TypeError(`schemaFromObject: ${path} has unknown type ${JSON.stringify(type)}`);
}
