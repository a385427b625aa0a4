import { ENDPOINT_LIST, type EndpointId } from '@tagtrack/core';
import type { EndpointCall } from '../../check/context.ts';
import type { Pair, Sample } from '../../check/sample.ts';

/** Catalogue endpoint ids, for checks that cover every endpoint. */
export const ALL_ENDPOINTS: readonly EndpointId[] = ENDPOINT_LIST.map((e) => e.id);

/** `sample` with `query` instead of its own query. */
export function sampleCallWith(sample: Sample, query: readonly Pair[]): EndpointCall {
  return { ...sample.call, query };
}
