import { startSimulator, clientConfigYaml } from './cluster.ts';
import { writeFileSync } from 'node:fs';
const s = await startSimulator({ controllers: true });
writeFileSync('/tmp/zz.kubeconfig', clientConfigYaml(s.url));
console.log('READY');
await new Promise((r) => setTimeout(r, 40000));
await s.close();
