// Every error the API answers is a Status (spec 7, wire-facts 2). ApiError carries one; the constructors
// mirror the real server's error helpers so messages, reasons and details read the same. (The client's
// ApiError, simulator/client/api-client.ts, is the error a client raises on a Status it received.)

import type { Status, StatusCause, StatusDetails } from '../api/meta.ts';

export class ApiError extends Error {
  readonly status: Status;
  /** Extra response headers (Retry-After). */
  readonly headers: Record<string, string>;

  constructor(code: number, reason: string | undefined, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
    if (reason) status.reason = reason;
    if (details) status.details = details;
    status.code = code;
    this.status = status;
    this.headers = headers;
  }

  get code(): number {
    return this.status.code ?? 500;
  }
}

/** A resource as the real server names it in messages: "configmaps" or "deployments.apps". */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function resourceDetails(gr: GroupResource, name: string | undefined): StatusDetails {
  const details: StatusDetails = {};
  if (name !== undefined) details.name = name;
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return details;
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, resourceDetails(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, resourceDetails(gr, name));
}

export function conflict(gr: GroupResource, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, resourceDetails(gr, name));
}

export function forbidden(gr: GroupResource, name: string, why: string): ApiError {
  const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, resourceDetails(gr, name));
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Gone', message);
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function methodNotSupported(gr: GroupResource, verb: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedResource(gr)}"`, { ...(gr.group ? { group: gr.group } : {}), kind: gr.resource });
}

export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function notAcceptable(accepted: string[]): ApiError {
  return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** 415 as the real server words it (AS negotiation errUnsupportedMediaType): the sent type is not named. */
export function unsupportedMediaType(_contentType: string, accepted: string[]): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function requestEntityTooLarge(limit: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function timeout(message: string, retryAfterSeconds = 1): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}

export function internalError(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
}

export { type FieldError, fieldErrorBody, required, invalidValue, notSupported, duplicate, forbiddenField, tooLong } from '../api/field-errors.ts';
import { type FieldError, fieldErrorBody } from '../api/field-errors.ts';

/** 422 Invalid: `Kind "name" is invalid: [field: body, ...]`, one cause per field error. */
export function invalid(kind: string, group: string, name: string, errs: FieldError[]): ApiError {
  const pieces = errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  const agg = pieces.length === 1 ? pieces[0] : `[${pieces.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const details: StatusDetails = { name, ...(group ? { group } : {}), kind, causes };
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${agg}`, details);
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
