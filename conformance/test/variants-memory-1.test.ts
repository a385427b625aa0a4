import { describeVariants } from './variant-matrix.ts';

/** Part 1 of the in-memory half of the variant matrix (see variant-matrix.ts). */
describeVariants('memory', 1);
