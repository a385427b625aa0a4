import type { EndpointId } from '@tagtrack/core';
import type { FailureKind } from '../check/failure.ts';

/**
 * Differences grouped by root cause: one deviation of side B (say its `Link` rel="prev" past a
 * huge cursor) shows on many requests of many endpoints; `diff` reports it once, with the
 * number of answers, the endpoints affected and a few examples.
 */

/** One difference as found on one request pair. */
export interface FoundDifference {
  readonly kind: FailureKind;
  /** `<field>: <value> on A, <value> on B` (see diff/compare.ts). */
  readonly message: string;
  /** The request, e.g. `GET /contacts?cursor=99999999999999999999 as team1-admin`. */
  readonly request: string;
  readonly endpoint: EndpointId | undefined;
}

/** A root cause: the same field or header differing the same way. */
export interface DiffCause {
  /** The field or header, record ids and numbers masked: `Link rel="prev"`, `tag * stats.uniqueOpens`. */
  readonly field: string;
  readonly kind: FailureKind;
  /** Answers (request pairs) it shows on. */
  readonly answers: number;
  /** Catalogue endpoints it shows on, sorted (`other` for probes outside the catalogue). */
  readonly endpoints: readonly string[];
  /** Up to three examples, `<request>: <difference>`. */
  readonly examples: readonly string[];
}

/**
 * The field part of a difference message with what varies from record to record masked:
 * quoted strings, hex ids of 6+ characters and numbers become `*`.
 */
export function causeField(message: string): string {
  const colon = message.indexOf(': ');
  const field = colon < 0 ? message : message.slice(0, colon);
  return field
    .replace(/"[^"]*"/g, (q) => (/^"[a-z]+"$/.test(q) ? q : '*'))
    .replace(/\b[0-9a-f]{6,}\b/gi, '*')
    .replace(/\d+/g, '*');
}

/** `found` grouped by cause (field and kind), most answers first. */
export function groupCauses(found: readonly (readonly FoundDifference[])[]): DiffCause[] {
  const causes = new Map<
    string,
    {
      field: string;
      kind: FailureKind;
      answers: number;
      endpoints: Set<string>;
      examples: string[];
    }
  >();
  for (const pair of found) {
    const seen = new Set<string>();
    for (const d of pair) {
      const field = causeField(d.message);
      const key = `${d.kind} ${field}`;
      let c = causes.get(key);
      if (c === undefined) {
        c = { field, kind: d.kind, answers: 0, endpoints: new Set(), examples: [] };
        causes.set(key, c);
      }
      if (!seen.has(key)) {
        seen.add(key);
        c.answers++;
        c.endpoints.add(d.endpoint ?? 'other');
        if (c.examples.length < 3) c.examples.push(`${d.request}: ${d.message}`);
      }
    }
  }
  return [...causes.values()]
    .map((c) => ({ ...c, endpoints: [...c.endpoints].sort() }))
    .sort((a, b) => b.answers - a.answers || (a.field < b.field ? -1 : 1));
}
