import { describeVariants } from './variant-matrix.ts';

/** The transport half of the variant matrix (see variant-matrix.ts): over a real socket. */
describeVariants('over a socket', (v) => v.transport);
