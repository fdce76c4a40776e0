// Query parameter values converted the way the real server's parameter codec converts them
// (apimachinery runtime.Convert_Slice_string_To_*): a repeated parameter counts by its first value (app.ts),
// unknown parameters are ignored, and:
// - booleans are false only for "0", "f" and "false" in any case; any other value (including "True", "t",
//   "TRUE", "yes" and the empty value of `?watch`) is true;
// - integers are Go strconv.ParseInt in base 10 within the field's width (int32 or int64); anything else,
//   or a value out of range, is 400 BadRequest with strconv's message.
// `pretty` alone is read with strconv.ParseBool by the real negotiation code (serializers.ts wantsPretty).

import { badRequest } from './errors.ts';

/** undefined when the parameter is absent. */
export function queryBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const l = v.toLowerCase();
  return !(v === '0' || l === 'f' || l === 'false');
}

const RANGE = { 32: [-(2n ** 31n), 2n ** 31n - 1n], 64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

/** Go strconv.ParseInt(v, 10, bits); throws a 400 naming the parameter. Empty counts as absent. */
export function queryInt(name: string, v: string | undefined, bits: 32 | 64 = 64): number | undefined {
  if (v === undefined || v === '') return undefined;
  const syntax = () => badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  if (!/^[+-]?\d+$/.test(v)) throw syntax();
  const n = BigInt(v);
  const [min, max] = RANGE[bits];
  if (n < min || n > max) throw badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(n);
}

/** Go strconv.ParseBool, for `pretty`: undefined when the value is not one of its words. */
export function goParseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}
