/**
 * One call of a check to a catalogue endpoint (`EndpointCall`): its path parameters, query,
 * credential and headers, the request it sends, and the limits of a check's loops over calls.
 */
import {
  buildPath,
  type EndpointId,
  endpointById,
  type PathParamName,
  type QueryOf,
  type TimeSlice,
} from '@tagtrack/core';
import type { Credential, Exchange, RequestSpec } from '../../http/client.ts';
import { readInSlices } from '../walk.ts';

/**
 * Path parameters and query of one request to catalogue endpoint `Id`. The query is sent as
 * `params` (the endpoint's parameters by name, typed by the catalogue's `QueryOf<Id>`; values
 * in any form, a string sent as it is) followed by the raw `query` pairs (any name, any value:
 * what the input and probe checks send).
 */
export interface EndpointCall<Id extends EndpointId = EndpointId> {
  readonly pathParams?: Partial<Record<PathParamName, string>>;
  readonly params?: { readonly [K in keyof QueryOf<Id>]?: string | number | boolean | undefined };
  readonly query?: readonly (readonly [string, string])[];
  /**
   * The query string to send verbatim instead of `params` and `query` (no leading `?`; empty
   * pieces, `+`, malformed escapes kept), signed exactly as sent: for the query-syntax checks
   * (spec §6 Revision 3). Not for {@link CheckContext.walk}.
   */
  readonly rawQuery?: string;
  readonly credential?: Credential | null;
  readonly method?: 'GET' | 'HEAD' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly cache?: boolean | 'read';
  /** A read made again to rebuild a walk the run let go (see `RequestSpec.rebuild`). */
  readonly rebuild?: boolean;
}

/** The query pairs `call` sends: its named `params` (in their order) then its raw `query`. */
export function queryPairs(call: EndpointCall): readonly (readonly [string, string])[] {
  const named = Object.entries(call.params ?? {}).flatMap(([name, value]) =>
    value === undefined ? [] : [[name, String(value)] as const],
  );
  return named.length === 0 ? (call.query ?? []) : [...named, ...(call.query ?? [])];
}

/** Items a {@link CheckContext.each} loop runs at once by default: one after the other. */
export const DEFAULT_EACH_CONCURRENCY = 1;

/**
 * Items at once for the loops of many independent requests that are the long chains of a
 * run (`ctx.each(items, fn, { concurrency: LOOP_BATCH })`): against a service answering in
 * 200 ms, a loop of 400 requests takes 10 s instead of 80 s. The run's pacer still keeps
 * every request to the declared rate.
 */
export const LOOP_BATCH = 8;

/** Failures of one {@link CheckContext.each} loop listed one by one unless it says otherwise. */
export const MAX_LISTED = 10;

/** Options of {@link CheckContext.each}. */
export interface EachOptions<T> {
  /**
   * Failures of this loop listed one by one (default {@link MAX_LISTED}); the rest are
   * counted, and one failure of kind `summary` says how many items failed in all.
   */
  readonly list?: number;
  /** Ends the check (as returning from `run` does) once it has this many failures, checked after each item. */
  readonly stopAt?: number;
  /** Words appended to the message of an item's failure (e.g. which header was sent). */
  readonly note?: (item: T) => string;
  /**
   * Items run at the same time, in batches of this size (default 1: one after the other):
   * for loops of many requests against a slow service. Items must then not depend on each
   * other; their failures, comparisons and request logs are still taken in item order, so
   * the verdict and the request log are those of the sequential loop.
   */
  readonly concurrency?: number;
  /**
   * Each item's verdict rests only on the reads the item makes (a status, a body, two forms
   * of one call), never on what the check read before the loop: a failing item is then read
   * again on still data when the data moves ({@link CheckContext.onStillData}, spec §5
   * Revision 3), instead of the whole check running again.
   */
  readonly readsOwn?: boolean;
  /**
   * The time slice the loop pauses by between items run one after the other (default: a new
   * core `TimeSlice`, about `SLICE_MS` of work between two turns of the event loop).
   */
  readonly slice?: TimeSlice;
}

/**
 * The request `call` sends to `endpoint`: signed with `call.credential` (default `primary`);
 * with `fresh`, never answered from the run's cache (see `CheckContext.onStillData`).
 */
export function requestOfCall(
  endpoint: EndpointId,
  call: EndpointCall,
  primary: Credential,
  fresh: boolean,
): RequestSpec {
  return {
    method: call.method ?? 'GET',
    path: buildPath(endpointById(endpoint), call.pathParams ?? {}),
    query: queryPairs(call),
    ...(call.rawQuery === undefined ? {} : { rawQuery: call.rawQuery }),
    credential: call.credential === undefined ? primary : call.credential,
    ...(call.headers === undefined ? {} : { headers: call.headers }),
    ...(fresh ? { cache: false } : call.cache === undefined ? {} : { cache: call.cache }),
    ...(call.rebuild === true ? { rebuild: true } : {}),
  };
}

/** Characters of an answer's body from which {@link readAhead} reads it in slices. */
export const READ_AHEAD_MIN_CHARS = 32 * 1024;

/**
 * What a check's call hands on, given the `exchange` of a call to `endpoint`: once a long 200
 * JSON answer has been parsed and checked against the envelope of `endpoint` in time slices
 * (`readInSlices`), so the check's own reads of it at once (`ctx.page`, `ctx.envelope`,
 * `parseJson`) find it done and the event loop keeps turning while a long page is read.
 * Nothing is judged or counted here: an answer that does not parse or conform is handed on
 * as it is, and the check's read of it fails as ever.
 */
export function readAhead(endpoint: EndpointId): (exchange: Exchange) => Promise<Exchange> {
  return async (exchange) => {
    if (exchange.body.length >= READ_AHEAD_MIN_CHARS && exchange.body.trimStart().startsWith('{'))
      await readInSlices(endpoint, exchange);
    return exchange;
  };
}
