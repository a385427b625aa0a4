import { describeVariants } from './variant-matrix.ts';

/** Part 1 of the transport half of the variant matrix (see variant-matrix.ts): over a real socket. */
describeVariants('socket', 1);
