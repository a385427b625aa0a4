import { describeVariants } from './variant-matrix.ts';

/** Part 4 of the in-memory half of the variant matrix (see variant-matrix.ts). */
describeVariants('memory', 4);
