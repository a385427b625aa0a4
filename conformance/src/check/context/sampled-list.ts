import type { EndpointId, RecordOf } from '@tagtrack/core';
import type { Exchange } from '../../http/client.ts';
import { type Coverage, sampledCursors } from '../coverage.ts';
import type { SuiteCredential } from '../types.ts';
import { type ListPage, recordsOf, type Walk } from '../walk.ts';
import { type EndpointCall, queryPairs } from './calls.ts';
import { hashString } from './services.ts';

/**
 * A list as `CheckContext.sampledList` read it: every record (`sampled` false, a
 * {@link Walk}), or the records of the pages at seeded cursors (`sampled` true). `total` is
 * the list's `paging.cursors.total` on its first page; `pages` the exchanges read, in
 * cursor order.
 */
export interface SampledList<R = unknown> {
  readonly records: R[];
  readonly pages: Exchange[];
  readonly total: number;
  readonly sampled: boolean;
  /**
   * The records by where they are in the list: one run of consecutive records from offset
   * `cursor` per page read (the whole list from 0 when not sampled), in cursor order.
   */
  readonly slices: readonly { readonly cursor: number; readonly records: readonly R[] }[];
}

/** What {@link readSampledList} needs of the check reading (`CheckContext`). */
export interface SampleHost {
  /** Records of a list verified whole before a sample is taken. */
  readonly sampleAbove: number;
  readonly baseSeed: number;
  readonly pageSize: number;
  /** The credential used when the call names none. */
  readonly primary: SuiteCredential;
  call(endpoint: EndpointId, call: EndpointCall): Promise<Exchange>;
  page(endpoint: EndpointId, exchange: Exchange): ListPage;
  walk(endpoint: EndpointId, call: EndpointCall): Promise<Walk>;
  covered(entry: Coverage): void;
  compared(): void;
}

/**
 * The cursors of the pages a sample of the list reads (page 0 among them): seeded by the
 * run's seed, the endpoint, its path parameters and query (the pairs of the call, without
 * `cursor`), the credential and the list's total, so every reader of the list (the sample,
 * and a walk that keeps those pages cached for it) names the same pages.
 */
export function sampleCursorsOf(
  host: Pick<SampleHost, 'baseSeed' | 'pageSize' | 'sampleAbove'>,
  endpoint: EndpointId,
  pathParams: EndpointCall['pathParams'],
  query: readonly (readonly [string, string])[],
  credential: SuiteCredential | null | undefined,
  total: number,
): number[] {
  const seed = hashString(
    JSON.stringify([host.baseSeed, endpoint, pathParams, query, credential?.label, total]),
  );
  return sampledCursors(total, host.pageSize, host.sampleAbove, seed);
}

/**
 * `CheckContext.sampledList`: every record of the list (the run's cached walk) when it has
 * at most `wholeUpTo` records (default `host.sampleAbove`), else the records of whole pages
 * at seeded cursors, about `host.sampleAbove` records (coverage.ts `sampledCursors`, seeded
 * by the run's seed, the endpoint, the call and the total: every check sampling the same list
 * reads the same pages, whatever the concurrency). Records what it read as coverage of
 * `subject`.
 */
export async function readSampledList<Id extends EndpointId>(
  host: SampleHost,
  endpoint: Id,
  call: EndpointCall,
  subject: string,
  wholeUpTo: number = host.sampleAbove,
): Promise<SampledList<RecordOf<Id>>> {
  const { params: _named, ...rest } = call;
  const query = queryPairs(call);
  const first = await host.call(endpoint, { ...rest, query });
  const page0 = host.page(endpoint, first);
  const total = page0.paging?.cursors.total ?? 0;
  const bound = host.sampleAbove;
  if (total <= Math.max(bound, wholeUpTo)) {
    const w = await host.walk(endpoint, call);
    const records = recordsOf(endpoint, w.records);
    host.covered({ subject, verified: records.length, of: w.total, sampled: false });
    return { ...w, records, sampled: false, slices: [{ cursor: 0, records }] };
  }
  const credential = call.credential === undefined ? host.primary : call.credential;
  const records: unknown[] = [...page0.data];
  const pages: Exchange[] = [first];
  const slices = [{ cursor: 0, records: recordsOf(endpoint, page0.data) }];
  for (const cursor of sampleCursorsOf(host, endpoint, call.pathParams, query, credential, total)) {
    if (cursor === 0) continue;
    const ex = await host.call(endpoint, {
      ...rest,
      query: [...query, ['cursor', String(cursor)]],
    });
    pages.push(ex);
    const data = host.page(endpoint, ex).data;
    records.push(...data);
    slices.push({ cursor, records: recordsOf(endpoint, data) });
  }
  host.compared();
  host.covered({ subject, verified: records.length, of: total, sampled: true });
  return { records: recordsOf(endpoint, records), pages, total, sampled: true, slices };
}
