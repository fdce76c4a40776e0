// The part of the real NamespaceLifecycle admission plugin that guards the namespaces every cluster has:
// `default`, `kube-system` and `kube-public` cannot be deleted (403 Forbidden, "this namespace may not be
// deleted"), so a cluster can never lose the namespace its own components write to. (Writes into a missing or
// terminating namespace are refused by the generic store's checkNamespaceWritable.)

import { forbidden } from '../errors.ts';
import type { AdmissionHook } from './attributes.ts';

export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

export const namespaceLifecycle: AdmissionHook = (attrs) => {
  if (attrs.operation !== 'DELETE' || attrs.subresource !== undefined) return;
  if (attrs.def.group !== '' || attrs.def.resource !== 'namespaces') return;
  if (IMMORTAL_NAMESPACES.has(attrs.name)) throw forbidden({ group: '', resource: 'namespaces' }, attrs.name, 'this namespace may not be deleted');
};
