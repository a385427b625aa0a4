import { describeVariants } from './variant-matrix.ts';

/** Part 2 of the transport half of the variant matrix (see variant-matrix.ts): over a real socket. */
describeVariants('socket', 2);
