import type { Dataset } from '@tagtrack/core';
import { withRevision3Cases } from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';

/**
 * The canonical dataset with core's Revision 3 cases (`withRevision3Cases`: two tags sent at
 * the same second, a recipient listed twice with events), built once: what the fault and
 * variant matrices serve for the rules those cases exercise. The canonical credentials and
 * profile apply.
 */
export const REVISION_3_DATASET: Dataset = withRevision3Cases(canonicalDataset);
