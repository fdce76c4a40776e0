// Older apps versions accepted in bodies posted to apps/v1 paths (spec 9.1; registry acceptedBodyVersions).
// A body is defaulted in its own version, then converted (the real server's decode-to-internal path):
// apps/v1beta1 Deployment: selector and labels from the template, revisionHistoryLimit 2 (wire-facts 5,
// PR #49924), the rollback request field dropped (apps/v1 has none); the other defaults are the apps/v1
// ones applied after conversion. apps/v1beta2 has the apps/v1 shape and defaults, so it needs no converter.
// The answer is in the path's version (apps/v1): the path decides the version of what is returned.

import type { KubeObject } from '../meta.ts';
import { registerBodyConverter } from '../conversion.ts';
import { defaultLabelsFromTemplate, defaultSelectorFromTemplate } from './template.ts';
import { type Obj, setDefault } from './util.ts';

/** apps/v1beta1 kept two old ReplicaSets by default (apps/v1beta2 and apps/v1 keep ten). */
export const APPS_V1BETA1_REVISION_HISTORY_LIMIT = 2;

export function convertAppsV1beta1Deployment(obj: KubeObject): void {
  defaultSelectorFromTemplate(obj);
  defaultLabelsFromTemplate(obj);
  const spec = (obj.spec ??= {}) as Obj;
  setDefault(spec, 'revisionHistoryLimit', APPS_V1BETA1_REVISION_HISTORY_LIMIT);
  delete spec.rollbackTo;
}

registerBodyConverter('apps/v1beta1', 'Deployment', convertAppsV1beta1Deployment);
