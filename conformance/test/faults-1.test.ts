import { describeFaults } from './fault-matrix.ts';

/** Part 1 of the fault matrix (see fault-matrix.ts). */
describeFaults(1);
