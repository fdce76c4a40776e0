// kubectl 1.20 (.tools/): the streaming scenario of simulator/testing/kubectl-streams-matrix.ts (SPDY/3.1 only).
import { kubectl120 } from '../testing/real-clients.ts';
import { kubectlStreamsMatrix } from '../testing/kubectl-streams-matrix.ts';

kubectlStreamsMatrix('1.20', kubectl120());
