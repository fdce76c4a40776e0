// Errors of the patch engines. The server turns a PatchError into a Status with the given code and reason
// and an UnsupportedPatchTypeError into 415; nothing a client sends may surface as a 500 (project rule).

export type PatchErrorCode = 400 | 422;

export class PatchError extends Error {
  readonly code: PatchErrorCode;
  readonly reason: 'BadRequest' | 'Invalid';

  constructor(code: PatchErrorCode, message: string) {
    super(message);
    this.name = 'PatchError';
    this.code = code;
    this.reason = code === 400 ? 'BadRequest' : 'Invalid';
  }
}

export function badRequest(message: string): PatchError {
  return new PatchError(400, message);
}

export function unprocessable(message: string): PatchError {
  return new PatchError(422, message);
}

/**
 * From 1.13 the real server answers every JSON-patch application failure with this fixed text (reason
 * Invalid, details {}) and drops the detailed error; the server may use it instead of PatchError.message.
 */
export const GENERIC_422_MESSAGE = 'the server rejected our request due to an error in our request';

/** Fixed error texts of the real strategic merge code (apimachinery pkg/util/mergepatch/errors.go). */
export const SMP_MESSAGES = {
  badJsonDoc: 'invalid JSON document',
  noListOfLists: 'lists of lists are not supported',
  badPrimitiveList: 'invalid patch format of primitive list',
  badRetainKeys: 'invalid patch format of retainKeys',
  badSetElementOrder: 'invalid patch format of setElementOrder list',
  contentNotMatchRetainKeys: "patch content doesn't match retainKeys list",
  mergeListDirective: 'merging lists cannot yet be specified in the patch',
} as const;

export class UnsupportedPatchTypeError extends Error {
  readonly contentType: string;
  readonly supported: readonly string[];

  constructor(contentType: string, supported: readonly string[]) {
    super(`the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`);
    this.name = 'UnsupportedPatchTypeError';
    this.contentType = contentType;
    this.supported = supported;
  }
}
