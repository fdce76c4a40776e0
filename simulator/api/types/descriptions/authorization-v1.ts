// Descriptions of the authorization group's types (authorization.k8s.io/v1): the access reviews the server
// answers from its authorizer (kubectl auth can-i).

import { t, type PackageDescriptions } from './common.ts';

const REVIEW_STATUS = 'The answer, filled in by the server.';

export const AUTHORIZATION_V1: PackageDescriptions = {
  packages: ['io.k8s.api.authorization.v1'],
  types: {
    SubjectAccessReview: t('Asks whether a given user may do something. Nothing is stored: the answer comes back in status.', {
      spec: 'The user and the action.',
      status: REVIEW_STATUS,
    }),
    SelfSubjectAccessReview: t('Asks whether the requesting user may do something (kubectl auth can-i). Nothing is stored.', {
      spec: 'The action.',
      status: REVIEW_STATUS,
    }),
    LocalSubjectAccessReview: t('Asks whether a given user may do something in one namespace (the namespace of the request). Nothing is stored.', {
      spec: 'The user and the action; its namespace must be the request\'s.',
      status: REVIEW_STATUS,
    }),
    SelfSubjectRulesReview: t('Asks for everything the requesting user may do in a namespace (kubectl auth can-i --list). Nothing is stored.', {
      spec: 'The namespace.',
      status: 'The rules, filled in by the server.',
    }),
    SubjectAccessReviewSpec: t('Who asks to do what: exactly one of resourceAttributes and nonResourceAttributes.', {
      resourceAttributes: 'The action on a resource.',
      nonResourceAttributes: 'The action on a non-resource URL.',
      user: 'The user.',
      groups: 'The user\'s groups.',
      extra: 'Extra attributes of the user.',
      uid: 'The user\'s uid.',
    }),
    SelfSubjectAccessReviewSpec: t('The action asked about: exactly one of these.', {
      resourceAttributes: 'The action on a resource.',
      nonResourceAttributes: 'The action on a non-resource URL.',
    }),
    SelfSubjectRulesReviewSpec: t('Where to list the rules.', { namespace: 'The namespace.' }),
    SubjectAccessReviewStatus: t('The answer of an access review.', {
      allowed: 'Whether the action is allowed.',
      denied: 'Whether the action is explicitly denied (allowed false and denied false: no opinion).',
      reason: 'Why, when the authorizer says.',
      evaluationError: 'Why the authorizer could not decide, when it could not.',
    }),
    SubjectRulesReviewStatus: t('The rules of a user in a namespace.', {
      resourceRules: 'Actions allowed on resources.',
      nonResourceRules: 'Actions allowed on non-resource URLs.',
      incomplete: 'True when the authorizer cannot list every rule (the list may miss some).',
      evaluationError: 'Why the list is incomplete, when it is.',
    }),
    ResourceAttributes: t('An action on a resource.', {
      namespace: 'The namespace; every namespace when empty for namespaced resources.',
      verb: 'The verb: get, list, watch, create, update, patch, delete... "*" for all.',
      group: 'The resource\'s group; "*" for all.',
      version: 'The resource\'s version; "*" for all.',
      resource: 'The resource; "*" for all.',
      subresource: 'The subresource.',
      name: 'One object, by name; every object when empty.',
    }),
    NonResourceAttributes: t('An action on a URL path that is not a resource.', { path: 'The path.', verb: 'The HTTP verb, lower case.' }),
    ResourceRule: t('Actions allowed on resources.', {
      verbs: 'The verbs.',
      apiGroups: 'The groups.',
      resources: 'The resources.',
      resourceNames: 'Only these objects; all when empty.',
    }),
    NonResourceRule: t('Actions allowed on non-resource URLs.', { verbs: 'The verbs.', nonResourceURLs: 'The URL paths.' }),
  },
};
