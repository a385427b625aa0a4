import { describeFaults } from './fault-matrix.ts';

/** Part 2 of the fault matrix (see fault-matrix.ts). */
describeFaults(2);
