import { describeFaults } from './fault-matrix.ts';

/** Part 3 of the fault matrix (see fault-matrix.ts). */
describeFaults(3);
