// Storage failures as API errors: the store's codes (storage/store.ts StoreError) become the Status a client of
// the real server gets, named with the resource (409 AlreadyExists, 404, 409 Conflict, 410 Expired, 500).

import type { ResourceDef } from '../../api/registry.ts';
import { StoreError } from '../../storage/store.ts';
import { ApiError, notFound, alreadyExists, conflict, expired, internalError } from '../errors.ts';
import { groupResource } from './system-meta.ts';

/** Maps storage failures to API errors with the resource's names. */
export function storeErrorToApi(e: unknown, def: ResourceDef, name: string): never {
  if (e instanceof ApiError) throw e;
  if (e instanceof StoreError) {
    const gr = groupResource(def);
    switch (e.code) {
      case 'KeyExists': throw alreadyExists(gr, name);
      case 'NotFound': throw notFound(gr, name);
      case 'Conflict': throw conflict(gr, name);
      case 'Compacted': throw expired(`The resourceVersion for the provided list is too old.`);
      default: throw internalError(e);
    }
  }
  throw e;
}
