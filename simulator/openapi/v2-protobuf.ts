// The protobuf form of the OpenAPI v2 document (media type application/com.github.proto-openapi.spec.v2@v1.0+protobuf):
// gnostic's openapi.v2.Document, which kubectl and client-go's discovery client ask /openapi/v2 for. Written by hand
// with protobufjs's Writer for the subset of the schema our JSON documents use; field numbers are those of the
// openapi.v2 proto package. Vendor extensions are NamedAny values whose `yaml` holds the value as YAML text (JSON,
// which YAML parsers read).

// The minimal build (reader, writer: a few modules); the .proto parser of the full library is loaded only by
// codec/protobuf-schema.ts when a type's schema is first needed.
import protobuf from 'protobufjs/minimal.js';

type Json = { [key: string]: unknown };
type Writer = protobuf.Writer;

const LEN = 2;
const VARINT = 0;

function str(w: Writer, field: number, value: unknown): void {
  if (typeof value === 'string' && value !== '') w.uint32((field << 3) | LEN).string(value);
}

function bool(w: Writer, field: number, value: unknown): void {
  if (value === true) w.uint32((field << 3) | VARINT).bool(true);
}

function strings(w: Writer, field: number, values: unknown): void {
  if (Array.isArray(values)) for (const v of values) if (typeof v === 'string') w.uint32((field << 3) | LEN).string(v);
}

function message(w: Writer, field: number, write: (w: Writer) => void): void {
  w.uint32((field << 3) | LEN).fork();
  write(w);
  w.ldelim();
}

/** Fields starting with "x-" as NamedAny{name, value: Any{yaml}}. */
function vendorExtensions(w: Writer, field: number, obj: Json): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!k.startsWith('x-')) continue;
    message(w, field, (n) => {
      str(n, 1, k);
      message(n, 2, (a) => str(a, 2, `${JSON.stringify(v)}\n`));
    });
  }
}

function schema(w: Writer, s: Json): void {
  str(w, 1, s.$ref);
  str(w, 2, s.format);
  str(w, 4, s.description);
  strings(w, 19, s.required);
  const ap = s.additionalProperties;
  if (ap && typeof ap === 'object') message(w, 21, (a) => message(a, 1, (x) => schema(x, ap as Json)));
  if (typeof s.type === 'string') message(w, 22, (t) => str(t, 1, s.type));
  const items = s.items;
  if (items && typeof items === 'object') message(w, 23, (i) => message(i, 1, (x) => schema(x, items as Json)));
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) message(w, 24, (x) => schema(x, sub as Json));
  const props = s.properties;
  if (props && typeof props === 'object') {
    message(w, 25, (p) => {
      for (const [name, sub] of Object.entries(props as Record<string, Json>)) {
        message(p, 1, (n) => {
          str(n, 1, name);
          message(n, 2, (x) => schema(x, sub));
        });
      }
    });
  }
  vendorExtensions(w, 31, s);
}

function parameter(w: Writer, p: Json): void {
  // ParametersItem{parameter: Parameter{body_parameter | non_body_parameter}}
  message(w, 1, (param) => {
    if (p.in === 'body') {
      message(param, 1, (b) => {
        str(b, 1, p.description);
        str(b, 2, p.name);
        str(b, 3, p.in);
        bool(b, 4, p.required);
        if (p.schema) message(b, 5, (x) => schema(x, p.schema as Json));
      });
      return;
    }
    message(param, 2, (nb) => {
      if (p.in === 'path') {
        message(nb, 4, (q) => {
          bool(q, 1, p.required);
          str(q, 2, p.in);
          str(q, 3, p.description);
          str(q, 4, p.name);
          str(q, 5, p.type);
          bool(q, 19, p.uniqueItems);
        });
      } else {
        message(nb, 3, (q) => {
          bool(q, 1, p.required);
          str(q, 2, p.in);
          str(q, 3, p.description);
          str(q, 4, p.name);
          str(q, 6, p.type);
          bool(q, 20, p.uniqueItems);
        });
      }
    });
  });
}

function operation(w: Writer, op: Json): void {
  strings(w, 1, op.tags);
  str(w, 3, op.description);
  str(w, 5, op.operationId);
  strings(w, 6, op.produces);
  strings(w, 7, op.consumes);
  if (Array.isArray(op.parameters)) for (const p of op.parameters) message(w, 8, (x) => parameter(x, p as Json));
  const responses = op.responses as Record<string, Json> | undefined;
  if (responses) {
    message(w, 9, (rs) => {
      for (const [code, r] of Object.entries(responses)) {
        message(rs, 1, (named) => {
          str(named, 1, code);
          message(named, 2, (value) =>
            message(value, 1, (resp) => {
              str(resp, 1, r.description);
              if (r.schema) message(resp, 2, (item) => message(item, 1, (x) => schema(x, r.schema as Json)));
            }),
          );
        });
      }
    });
  }
  strings(w, 10, op.schemes);
  vendorExtensions(w, 13, op);
}

const PATH_ITEM_FIELDS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

/** Encodes a Swagger 2.0 JSON document (as buildV2Document makes it) as an openapi.v2.Document. */
export function encodeV2Protobuf(doc: Json): Buffer {
  const w = protobuf.Writer.create();
  str(w, 1, doc.swagger);
  const info = doc.info as Json | undefined;
  if (info) {
    message(w, 2, (i) => {
      str(i, 1, info.title);
      str(i, 2, info.version);
    });
  }
  const paths = doc.paths as Record<string, Json> | undefined;
  if (paths) {
    message(w, 8, (ps) => {
      for (const [path, item] of Object.entries(paths)) {
        message(ps, 2, (named) => {
          str(named, 1, path);
          message(named, 2, (pi) => {
            for (const [method, field] of Object.entries(PATH_ITEM_FIELDS)) {
              const op = item[method] as Json | undefined;
              if (op) message(pi, field, (o) => operation(o, op));
            }
            if (Array.isArray(item.parameters)) for (const p of item.parameters) message(pi, 9, (x) => parameter(x, p as Json));
          });
        });
      }
    });
  }
  const definitions = doc.definitions as Record<string, Json> | undefined;
  if (definitions) {
    message(w, 9, (ds) => {
      for (const [name, s] of Object.entries(definitions)) {
        message(ds, 1, (named) => {
          str(named, 1, name);
          message(named, 2, (x) => schema(x, s));
        });
      }
    });
  }
  return Buffer.from(w.finish());
}
