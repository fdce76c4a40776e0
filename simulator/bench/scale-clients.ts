// The scale bench's clients (the controller daemon and the simulated nodes) in a worker thread of their own, so
// that they and the API server each have a core, as a real cluster's controller manager, kubelets and API server
// are separate processes. The bench posts the server's URL and the options startSimulator would have used; this
// thread starts them the same way (cluster.ts's startControllers, nodes/index.ts's startNodes) and stops them when
// told to.
//
//   new Worker(<tsx-registering entry>, { workerData: ScaleClientsInit }) → 'ready'
//   'cpu' → { cpuSeconds } (this thread's CPU time so far)       'close' → 'closed'
//   { profile: file } → 'profiling' (a CPU profile of this thread from now)   'profile-stop' → 'profiled' (written)

import { parentPort, workerData } from 'node:worker_threads';
import { threadCpuSeconds, startThreadProfile } from './measurement.ts';
import { startControllers, type SimulatorOptions } from '../cluster.ts';
import { startNodes, type NodesOptions } from '../nodes/index.ts';

export interface ScaleClientsInit {
  url: string;
  controllers: string[];
  controllerArgs: string[];
  nodes: Omit<NodesOptions, 'log'>;
}

if (parentPort && (workerData as { scaleClients?: ScaleClientsInit } | undefined)?.scaleClients) {
  const init = (workerData as { scaleClients: ScaleClientsInit }).scaleClients;
  const port = parentPort;
  const opts: SimulatorOptions = { controllers: init.controllers, controllerArgs: init.controllerArgs };
  const daemon = await startControllers(init.url, 'kubernetes', opts);
  const nodes = await startNodes(init.url, { ...init.nodes, log: () => {} });
  let stopProfile: (() => Promise<void>) | undefined;
  port.on('message', async (m: string | { profile: string }) => {
    if (typeof m === 'object') {
      stopProfile = await startThreadProfile(m.profile);
      return port.postMessage('profiling');
    }
    if (m === 'profile-stop') {
      await stopProfile?.();
      return port.postMessage('profiled');
    }
    if (m === 'cpu') return port.postMessage({ cpuSeconds: threadCpuSeconds() });
    if (m !== 'close') return;
    await nodes.close();
    await daemon.close();
    port.postMessage('closed');
  });
  port.postMessage('ready');
}
