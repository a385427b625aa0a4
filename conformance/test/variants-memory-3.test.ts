import { describeVariants } from './variant-matrix.ts';

/** Part 3 of the in-memory half of the variant matrix (see variant-matrix.ts). */
describeVariants('memory', 3);
