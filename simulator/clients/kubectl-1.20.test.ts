// kubectl 1.20 (Debian's kubernetes-client, unpacked into .tools/ by scripts/install-client-tools.sh) against the
// simulator: the scenario in simulator/testing/kubectl-matrix.ts.
import { kubectl120 } from '../testing/real-clients.ts';
import { kubectlMatrix } from '../testing/kubectl-matrix.ts';

kubectlMatrix('1.20', kubectl120());
