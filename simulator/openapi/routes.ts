// Every route the simulator serves, with its operations, as a dialect-neutral model that documents.ts renders
// as OpenAPI v2 paths and OpenAPI v3 paths. Derived from the registry (verbs, scope, subresources), so the
// documents list exactly what the server routes (app.ts route()).

import type { ResourceDef, Registry } from '../api/registry.ts';
import { apiVersionOf } from '../api/meta.ts';
import { messageNameForKind } from '../codec/protobuf-schema.ts';
import { definitionName, PATCH, type GroupVersionKind } from './schemas.ts';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

export interface Param {
  name: string;
  in: 'path' | 'query';
  description: string;
  type: 'string' | 'boolean' | 'integer';
  required?: boolean;
}

export interface Operation {
  method: HttpMethod;
  operationId: string;
  description: string;
  /** x-kubernetes-action */
  action: string;
  gvk: GroupVersionKind;
  tag: string;
  query: Param[];
  /** Definition of the request body; PATCH bodies are the Patch definition. */
  body?: string;
  /** Response code -> definition, or STRING_RESPONSE for a plain string (logs, streams). */
  responses: Record<string, string>;
  /** The media types answered, where they are not the object types (logs, connect). */
  produces?: string[];
  /** List operations also stream watch events (the response media types differ). */
  streams: boolean;
}

export interface Route {
  path: string;
  /** Path parameters and `pretty`, shared by every operation of the path. */
  params: Param[];
  operations: Operation[];
}

const P = (name: string, description: string, type: Param['type'] = 'string'): Param => ({ name, in: 'query', description, type });

const PRETTY = P('pretty', "If 'true', then the output is pretty printed.");
const LIST_QUERY: Param[] = [
  P('continue', 'The continue token of the previous chunk of a chunked list.'),
  P('fieldSelector', 'A selector restricting the returned objects by their fields. Defaults to everything.'),
  P('includeUninitialized', 'If true, partially initialized resources are included in the response.', 'boolean'),
  P('labelSelector', 'A selector restricting the returned objects by their labels. Defaults to everything.'),
  P('limit', 'The maximum number of items of one chunk; more are announced by a continue token.', 'integer'),
  P('resourceVersion', 'Which revision the list or watch starts from (see the list and watch conventions).'),
  P('timeoutSeconds', 'Timeout for the list or watch call.', 'integer'),
  P('watch', 'Watch for changes to the described resources and return them as a stream of events.', 'boolean'),
];
const DRY_RUN = P('dryRun', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive results in an error response (400) and no further processing of the request. Valid values are: - All: all dry run stages will be processed');
const WRITE_QUERY: Param[] = [
  DRY_RUN,
  P('fieldManager', 'The name of the actor making these changes.'),
  P('fieldValidation', 'How unknown and duplicate fields of the body are handled: Ignore, Warn or Strict.'),
];
const DELETE_QUERY: Param[] = [
  DRY_RUN,
  P('gracePeriodSeconds', 'Seconds before the object is deleted; zero means at once.', 'integer'),
  P('orphanDependents', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.', 'boolean'),
  P('propagationPolicy', 'Whether and how garbage collection is done: Orphan, Background or Foreground.'),
];
const GET_QUERY: Param[] = [
  P('exact', 'Whether the export is exact (keeps cluster-specific fields such as the namespace).', 'boolean'),
  P('export', 'Whether fields a user cannot specify are stripped.', 'boolean'),
];

// The options of the pod subresources (1.9's PodLogOptions, PodExecOptions, PodAttachOptions, PodPortForwardOptions).
const LOG_QUERY: Param[] = [
  P('container', 'The container whose log is read; needed when the pod has several.'),
  P('follow', 'Whether the log is streamed as it grows.', 'boolean'),
  P('limitBytes', 'The most bytes of log to answer.', 'integer'),
  P('previous', "Whether the previous terminated container's log is read.", 'boolean'),
  P('sinceSeconds', 'Only the log lines of the last this many seconds.', 'integer'),
  P('tailLines', 'Only this many lines from the end of the log.', 'integer'),
  P('timestamps', 'Whether each line starts with its RFC 3339 timestamp.', 'boolean'),
];
const STREAMS: Param[] = [
  P('container', 'The container to connect to; needed when the pod has several.'),
  P('stderr', 'Whether the standard error is streamed.', 'boolean'),
  P('stdin', 'Whether the standard input is streamed.', 'boolean'),
  P('stdout', 'Whether the standard output is streamed.', 'boolean'),
  P('tty', 'Whether a terminal is allocated.', 'boolean'),
];
const CONNECT_SUBRESOURCES: ReadonlyArray<readonly ['exec' | 'attach' | 'portforward', Param[]]> = [
  ['attach', STREAMS],
  ['exec', [P('command', 'The command to run, one argument per parameter.'), ...STREAMS]],
  ['portforward', [P('ports', 'The ports of the pod to forward to.', 'integer')]],
];

const pathParam = (name: string, description: string): Param => ({ name, in: 'path', description, type: 'string', required: true });
const NAMESPACE = pathParam('namespace', 'object name and auth scope, such as for teams and projects');

const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
/** A response whose schema is `{type: string}` rather than a definition. */
export const STRING_RESPONSE = '';
const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';
const API_RESOURCE_LIST = 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList';

/** The definition of a kind of a group/version (its protobuf message, named as the real server names it). */
export function definitionFor(apiVersion: string, kind: string): string {
  const msg = messageNameForKind(apiVersion, kind);
  if (!msg) throw new Error(`openapi: no type for ${apiVersion} ${kind}`);
  return definitionName(msg);
}

/**
 * The group's words as the real operation ids and tags write them: "" -> "core", "apps" -> "apps",
 * "authorization.k8s.io" -> "authorization", "rbac.authorization.k8s.io" -> "rbacAuthorization".
 */
export function groupCamel(group: string): string {
  if (group === '') return 'core';
  const words = group.replace(/\.k8s\.io$/, '').split(/[.-]/);
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

/** "" -> "Core", "rbac.authorization.k8s.io" -> "RbacAuthorization" (the real operation ids). */
export function groupWord(group: string): string {
  const camel = groupCamel(group);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

function tagOf(group: string, version: string): string {
  return `${groupCamel(group)}_${version}`;
}

export function groupVersionPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

function parseGvk(apiVersion: string, kind: string): GroupVersionKind {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

function resourceRoutes(def: ResourceDef): Route[] {
  const has = (v: string) => (def.verbs as string[]).includes(v);
  const prefix = groupVersionPrefix(def.group, def.version);
  const gv = `${groupWord(def.group)}${def.version.charAt(0).toUpperCase()}${def.version.slice(1)}`;
  const gvk: GroupVersionKind = { group: def.group, version: def.version, kind: def.kind };
  const type = definitionFor(apiVersionOf(def), def.kind);
  const listType = has('list') ? definitionFor(apiVersionOf(def), `${def.kind}List`) : undefined;
  const tag = tagOf(def.group, def.version);
  const scoped = def.namespaced ? 'Namespaced' : '';
  const collection = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
  const nsParams = def.namespaced ? [NAMESPACE] : [];
  const nameParam = pathParam('name', `name of the ${def.kind}`);
  const op = (o: Omit<Operation, 'gvk' | 'tag' | 'streams'> & { gvk?: GroupVersionKind; streams?: boolean }): Operation => ({
    gvk,
    tag,
    streams: false,
    ...o,
  });
  const routes: Route[] = [];

  // The collection: list, create, delete collection.
  const collOps: Operation[] = [];
  if (has('list')) {
    collOps.push(op({ method: 'get', operationId: `list${gv}${scoped}${def.kind}`, description: `list or watch objects of kind ${def.kind}`, action: 'list', query: LIST_QUERY, responses: { '200': listType! }, streams: true }));
  }
  if (has('create')) {
    collOps.push(op({ method: 'post', operationId: `create${gv}${scoped}${def.kind}`, description: `create a ${def.kind}`, action: 'post', query: WRITE_QUERY, body: type, responses: { '200': type, '201': type, '202': type } }));
  }
  if (has('deletecollection')) {
    collOps.push(op({ method: 'delete', operationId: `delete${gv}Collection${scoped}${def.kind}`, description: `delete collection of ${def.kind}`, action: 'deletecollection', query: [DRY_RUN, ...LIST_QUERY], responses: { '200': STATUS } }));
  }
  // A collection whose only operation is the list (componentstatuses): its query parameters are the path's, as
  // 1.9's document moves parameters every operation of a path shares.
  const listOnly = collOps.length === 1 && has('list');
  if (listOnly) routes.push({ path: collection, params: [...LIST_QUERY, ...nsParams, PRETTY], operations: [{ ...collOps[0], query: [] }] });
  else if (collOps.length) routes.push({ path: collection, params: [...nsParams, PRETTY], operations: collOps });
  if (def.virtual) return routes;

  // One object: read, replace, patch, delete.
  const objOps: Operation[] = [];
  const objPath = `${collection}/{name}`;
  // Computed kinds (componentstatuses) have no export: their read takes no query.
  const getQuery = def.computed ? [] : GET_QUERY;
  if (has('get')) objOps.push(op({ method: 'get', operationId: `read${gv}${scoped}${def.kind}`, description: `read the specified ${def.kind}`, action: 'get', query: getQuery, responses: { '200': type } }));
  if (has('update')) objOps.push(op({ method: 'put', operationId: `replace${gv}${scoped}${def.kind}`, description: `replace the specified ${def.kind}`, action: 'put', query: WRITE_QUERY, body: type, responses: { '200': type, '201': type } }));
  if (has('patch')) objOps.push(op({ method: 'patch', operationId: `patch${gv}${scoped}${def.kind}`, description: `partially update the specified ${def.kind}`, action: 'patch', query: WRITE_QUERY, body: PATCH, responses: { '200': type } }));
  if (has('delete')) objOps.push(op({ method: 'delete', operationId: `delete${gv}${scoped}${def.kind}`, description: `delete a ${def.kind}`, action: 'delete', query: DELETE_QUERY, body: DELETE_OPTIONS, responses: { '200': STATUS } }));
  if (objOps.length) routes.push({ path: objPath, params: [nameParam, ...nsParams, PRETTY], operations: objOps });

  // Subresources.
  if (def.subresources.status) {
    const ops: Operation[] = [
      op({ method: 'get', operationId: `read${gv}${scoped}${def.kind}Status`, description: `read status of the specified ${def.kind}`, action: 'get', query: [], responses: { '200': type } }),
      op({ method: 'put', operationId: `replace${gv}${scoped}${def.kind}Status`, description: `replace status of the specified ${def.kind}`, action: 'put', query: WRITE_QUERY, body: type, responses: { '200': type, '201': type } }),
      op({ method: 'patch', operationId: `patch${gv}${scoped}${def.kind}Status`, description: `partially update status of the specified ${def.kind}`, action: 'patch', query: WRITE_QUERY, body: PATCH, responses: { '200': type } }),
    ];
    routes.push({ path: `${objPath}/status`, params: [nameParam, ...nsParams, PRETTY], operations: ops });
  }
  if (def.subresources.approval) {
    const ops: Operation[] = [
      op({ method: 'get', operationId: `read${gv}${scoped}${def.kind}Approval`, description: `read approval of the specified ${def.kind}`, action: 'get', query: [], responses: { '200': type } }),
      op({ method: 'put', operationId: `replace${gv}${scoped}${def.kind}Approval`, description: `replace approval of the specified ${def.kind}`, action: 'put', query: WRITE_QUERY, body: type, responses: { '200': type, '201': type } }),
      op({ method: 'patch', operationId: `patch${gv}${scoped}${def.kind}Approval`, description: `partially update approval of the specified ${def.kind}`, action: 'patch', query: WRITE_QUERY, body: PATCH, responses: { '200': type } }),
    ];
    routes.push({ path: `${objPath}/approval`, params: [nameParam, ...nsParams, PRETTY], operations: ops });
  }
  const scale = def.subresources.scale;
  if (scale && scale !== true) {
    const scaleType = definitionFor(scale.apiVersion, 'Scale');
    const scaleGvk = parseGvk(scale.apiVersion, 'Scale');
    const nameOfScale = pathParam('name', 'name of the Scale');
    const ops: Operation[] = [
      op({ method: 'get', operationId: `read${gv}${scoped}${def.kind}Scale`, description: `read scale of the specified ${def.kind}`, action: 'get', gvk: scaleGvk, query: [], responses: { '200': scaleType } }),
      op({ method: 'put', operationId: `replace${gv}${scoped}${def.kind}Scale`, description: `replace scale of the specified ${def.kind}`, action: 'put', gvk: scaleGvk, query: WRITE_QUERY, body: scaleType, responses: { '200': scaleType, '201': scaleType } }),
      op({ method: 'patch', operationId: `patch${gv}${scoped}${def.kind}Scale`, description: `partially update scale of the specified ${def.kind}`, action: 'patch', gvk: scaleGvk, query: WRITE_QUERY, body: PATCH, responses: { '200': scaleType } }),
    ];
    routes.push({ path: `${objPath}/scale`, params: [nameOfScale, ...nsParams, PRETTY], operations: ops });
  }
  if (def.subresources.binding) {
    const bindingType = definitionFor('v1', 'Binding');
    const ops = [op({ method: 'post', operationId: `create${gv}${scoped}${def.kind}Binding`, description: `create binding of a ${def.kind}`, action: 'post', gvk: parseGvk('v1', 'Binding'), query: WRITE_QUERY, body: bindingType, responses: { '200': bindingType, '201': bindingType, '202': bindingType } })];
    routes.push({ path: `${objPath}/binding`, params: [pathParam('name', 'name of the Binding'), ...nsParams, PRETTY], operations: ops });
  }
  if (def.subresources.rollback) {
    const rollbackType = definitionFor(apiVersionOf(def), 'DeploymentRollback');
    const ops = [op({ method: 'post', operationId: `create${gv}${scoped}${def.kind}Rollback`, description: `create rollback of a ${def.kind}`, action: 'post', gvk: parseGvk(apiVersionOf(def), 'DeploymentRollback'), query: WRITE_QUERY, body: rollbackType, responses: { '200': rollbackType, '201': rollbackType, '202': rollbackType } })];
    routes.push({ path: `${objPath}/rollback`, params: [pathParam('name', 'name of the DeploymentRollback'), ...nsParams, PRETTY], operations: ops });
  }
  if (def.subresources.eviction) {
    const evictionType = definitionFor('policy/v1beta1', 'Eviction');
    const ops = [op({ method: 'post', operationId: `create${gv}${scoped}${def.kind}Eviction`, description: `create eviction of a ${def.kind}`, action: 'post', gvk: parseGvk('policy/v1beta1', 'Eviction'), query: [], body: evictionType, responses: { '200': evictionType, '201': evictionType, '202': evictionType } })];
    routes.push({ path: `${objPath}/eviction`, params: [pathParam('name', 'name of the Eviction'), ...nsParams, PRETTY], operations: ops });
  }
  if (def.subresources.log) {
    const ops = [op({ method: 'get', operationId: `read${gv}${scoped}${def.kind}Log`, description: `read log of the specified ${def.kind}`, action: 'get', query: [], responses: { '200': STRING_RESPONSE }, produces: ['text/plain', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] })];
    routes.push({ path: `${objPath}/log`, params: [...LOG_QUERY, pathParam('name', `name of the ${def.kind}`), ...nsParams, PRETTY], operations: ops });
  }
  for (const [sub, query] of CONNECT_SUBRESOURCES) {
    if (!def.subresources[sub]) continue;
    const word = sub.charAt(0).toUpperCase() + sub.slice(1);
    const connect = (method: 'get' | 'post', verb: string) =>
      op({ method, operationId: `connect${gv}${verb}${scoped}${def.kind}${word}`, description: `connect ${method.toUpperCase()} requests to ${sub} of ${def.kind}`, action: 'connect', query: [], responses: { '200': STRING_RESPONSE }, produces: ['*/*'] });
    routes.push({ path: `${objPath}/${sub}`, params: [...query, pathParam('name', `name of the ${def.kind}Options`), ...nsParams], operations: [connect('get', 'Get'), connect('post', 'Post')] });
  }
  if (def.subresources.finalize) {
    const ops = [op({ method: 'put', operationId: `replace${gv}${def.kind}Finalize`, description: `replace finalize of the specified ${def.kind}`, action: 'put', query: WRITE_QUERY, body: type, responses: { '200': type, '201': type } })];
    routes.push({ path: `${objPath}/finalize`, params: [nameParam, PRETTY], operations: ops });
  }

  // Across namespaces, and the /watch/ paths.
  if (has('list') && def.namespaced) {
    const ops = [op({ method: 'get', operationId: `list${gv}${def.kind}ForAllNamespaces`, description: `list or watch objects of kind ${def.kind}`, action: 'list', query: [], responses: { '200': listType! }, streams: true })];
    routes.push({ path: `${prefix}/${def.resource}`, params: [...LIST_QUERY, PRETTY], operations: ops });
  }
  if (has('watch')) {
    const watchColl = def.namespaced ? `${prefix}/watch/namespaces/{namespace}/${def.resource}` : `${prefix}/watch/${def.resource}`;
    routes.push({
      path: watchColl,
      params: [...LIST_QUERY, ...nsParams, PRETTY],
      operations: [op({ method: 'get', operationId: `watch${gv}${scoped}${def.kind}List`, description: `watch individual changes to a list of ${def.kind}`, action: 'watchlist', query: [], responses: { '200': WATCH_EVENT }, streams: true })],
    });
    routes.push({
      path: `${watchColl}/{name}`,
      params: [...LIST_QUERY, nameParam, ...nsParams, PRETTY],
      operations: [op({ method: 'get', operationId: `watch${gv}${scoped}${def.kind}`, description: `watch changes to an object of kind ${def.kind}`, action: 'watch', query: [], responses: { '200': WATCH_EVENT }, streams: true })],
    });
    if (def.namespaced) {
      routes.push({
        path: `${prefix}/watch/${def.resource}`,
        params: [...LIST_QUERY, PRETTY],
        operations: [op({ method: 'get', operationId: `watch${gv}${def.kind}ListForAllNamespaces`, description: `watch individual changes to a list of ${def.kind}`, action: 'watchlist', query: [], responses: { '200': WATCH_EVENT }, streams: true })],
      });
    }
  }
  return routes;
}

/** The discovery document of one group/version (GET /api/v1/, /apis/apps/v1/). */
function resourceListRoute(group: string, version: string): Route {
  const gv = `${groupWord(group)}${version.charAt(0).toUpperCase()}${version.slice(1)}`;
  return {
    path: `${groupVersionPrefix(group, version)}/`,
    params: [],
    operations: [
      {
        method: 'get',
        operationId: `get${gv}APIResources`,
        description: 'get available resources',
        action: '',
        gvk: { group: '', version: '', kind: '' },
        tag: tagOf(group, version),
        query: [],
        responses: { '200': API_RESOURCE_LIST },
        streams: false,
      },
    ],
  };
}

/** Every route of one group/version, sorted by path. */
export function routesOf(registry: Registry, group: string, version: string): Route[] {
  const routes: Route[] = [resourceListRoute(group, version)];
  for (const def of registry.resourcesOf(group, version)) routes.push(...resourceRoutes(def));
  return routes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The served group/versions in discovery order: core first, then the groups. */
export function groupVersions(registry: Registry): Array<{ group: string; version: string }> {
  const seen = new Set<string>();
  const out: Array<{ group: string; version: string }> = [];
  const defs = [...registry.defs].sort((a, b) => (a.group === '' ? -1 : 0) - (b.group === '' ? -1 : 0));
  for (const d of defs) {
    const key = `${d.group}/${d.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ group: d.group, version: d.version });
  }
  return out;
}

/** The x-kubernetes-group-version-kind of each top-level definition: every served (group, version, kind) of it. */
export function gvkIndex(registry: Registry): Map<string, GroupVersionKind[]> {
  const index = new Map<string, GroupVersionKind[]>();
  const add = (name: string, gvk: GroupVersionKind) => {
    const list = index.get(name) ?? [];
    if (!list.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) list.push(gvk);
    index.set(name, list);
  };
  const gvs = groupVersions(registry);
  for (const def of registry.defs) {
    const av = apiVersionOf(def);
    add(definitionFor(av, def.kind), { group: def.group, version: def.version, kind: def.kind });
    if ((def.verbs as string[]).includes('list')) add(definitionFor(av, `${def.kind}List`), { group: def.group, version: def.version, kind: `${def.kind}List` });
    const scale = def.subresources.scale;
    if (scale && scale !== true) add(definitionFor(scale.apiVersion, 'Scale'), parseGvk(scale.apiVersion, 'Scale'));
    if (def.subresources.rollback) add(definitionFor(av, 'DeploymentRollback'), parseGvk(av, 'DeploymentRollback'));
    if (def.subresources.eviction) add(definitionFor('policy/v1beta1', 'Eviction'), parseGvk('policy/v1beta1', 'Eviction'));
  }
  add(STATUS, { group: '', version: 'v1', kind: 'Status' });
  // The discovery documents are "unversioned" kinds of v1.
  for (const kind of ['APIGroup', 'APIGroupList', 'APIResourceList', 'APIVersions']) add(`io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`, { group: '', version: 'v1', kind });
  // Option bodies and watch events are registered in every group/version.
  for (const { group, version } of gvs) {
    add(DELETE_OPTIONS, { group, version, kind: 'DeleteOptions' });
    add(WATCH_EVENT, { group, version, kind: 'WatchEvent' });
  }
  return index;
}

export { STATUS, DELETE_OPTIONS, WATCH_EVENT, API_RESOURCE_LIST };
