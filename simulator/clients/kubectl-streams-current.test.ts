// kubectl of this machine: the streaming scenario of simulator/testing/kubectl-streams-matrix.ts.
import { kubectlCurrent } from '../testing/real-clients.ts';
import { kubectlStreamsMatrix } from '../testing/kubectl-streams-matrix.ts';

kubectlStreamsMatrix('current', kubectlCurrent());
