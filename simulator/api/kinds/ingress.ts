// Ingress (extensions/v1beta1): a new Ingress starts with an empty load balancer status, which the ingress
// controller (none in this simulator) would fill in.

import { registerStrategy, type KindStrategy } from '../strategy.ts';

export const ingressStrategy: KindStrategy = {
  prepareForCreate: (obj) => {
    obj.status = { loadBalancer: {} };
  },
};

registerStrategy('Ingress', ingressStrategy);
