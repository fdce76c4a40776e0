// The machine's kubectl (on PATH) against the simulator: the scenario in simulator/testing/kubectl-matrix.ts.
import { kubectlCurrent } from '../testing/real-clients.ts';
import { kubectlMatrix } from '../testing/kubectl-matrix.ts';

kubectlMatrix('current', kubectlCurrent());
