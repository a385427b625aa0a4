import { createHash } from 'node:crypto';
import {
  type Answer,
  contactIdOf,
  type Dataset,
  type EndpointId,
  type EndpointRequest,
  normaliseEmail,
} from '@tagtrack/core';
import type { VariantSet } from './index.ts';

/** The error message of a store variant that needs the dataset, given none. */
export function needsDataset(variant: string): string {
  return `variant ${variant} needs the dataset the engine serves (its ids and emails)`;
}

/**
 * The store-layer variants: post-processing of the records core's index answers, before
 * paging and rendering, each a freedom of the profile (spec §5, §9 Revision 2):
 * `event-ties-reversed`, `contact-ids-alternative`, `fractional-seconds`, `extra-fields`.
 * Records are copied, never mutated (the index shares them between answers).
 */
export class RecordVariants {
  /** Core contact id -> alternative id, and back (`contact-ids-alternative`). */
  readonly #toAlt = new Map<string, string>();
  readonly #fromAlt = new Map<string, string>();
  readonly #active: boolean;

  /**
   * `dataset` is the data the store serves; `contact-ids-alternative` reads it (its ids), so
   * it throws without one (a SQL engine serving tables it did not load).
   */
  constructor(
    dataset: Dataset | undefined,
    readonly variants: VariantSet,
  ) {
    this.#active = variants.hasAny([
      'event-ties-reversed',
      'contact-ids-alternative',
      'fractional-seconds',
      'extra-fields',
    ]);
    if (variants.has('contact-ids-alternative')) {
      if (dataset === undefined) throw new Error(needsDataset('contact-ids-alternative'));
      for (const tag of dataset.tags) {
        for (const r of tag.recipients) {
          const email = normaliseEmail(r.email);
          const core = contactIdOf(email);
          if (this.#toAlt.has(core)) continue;
          const alt = alternativeContactId(email);
          const clash = this.#fromAlt.get(alt);
          if (clash !== undefined && clash !== core) {
            throw new Error(`contact-ids-alternative: two emails share the id ${alt}`);
          }
          this.#toAlt.set(core, alt);
          this.#fromAlt.set(alt, core);
        }
      }
    }
  }

  /** Whether any store variant is on (otherwise {@link requestIn} and {@link answerOut} are identities). */
  get active(): boolean {
    return this.#active;
  }

  /**
   * The request in core's terms: under `contact-ids-alternative`, the alternative contact id
   * of `/contacts/{id}` becomes core's (a core id, or anything else, then matches no contact).
   * `echo` maps the id a not-found message names back to the one the client sent.
   */
  requestIn(request: EndpointRequest): { request: EndpointRequest; echo?: [string, string] } {
    const sent = request.pathParams.contactID;
    if (!this.variants.has('contact-ids-alternative') || sent === undefined) return { request };
    const core = this.#fromAlt.get(sent) ?? '\u0000';
    return {
      request: { ...request, pathParams: { ...request.pathParams, contactID: core } },
      echo: [JSON.stringify(core), JSON.stringify(sent)],
    };
  }

  /** The answer with the active store variants applied to its records. */
  answerOut(endpoint: EndpointId, answer: Answer, echo: [string, string] | undefined): Answer {
    if (answer.kind === 'not_found') {
      return echo === undefined
        ? answer
        : { ...answer, message: answer.message.replace(echo[0], echo[1]) };
    }
    if (!this.#active) return answer;
    if (answer.kind === 'single') {
      return { kind: 'single', record: this.#records(endpoint, [answer.record])[0] };
    }
    return { kind: 'list', records: this.#records(endpoint, answer.records) };
  }

  #records(endpoint: EndpointId, records: readonly unknown[]): unknown[] {
    const v = this.variants;
    let out: unknown[] = [...records];
    if (v.has('event-ties-reversed')) out = reverseTies(endpoint, out);
    if (v.has('contact-ids-alternative')) out = out.map((r) => this.#altIds(endpoint, r));
    if (v.has('fractional-seconds')) out = out.map(withFractionalSeconds);
    if (v.has('extra-fields')) {
      const extra = extraFieldsOf(endpoint);
      out = out.map((r) => ({ ...(r as object), ...extra }));
    }
    return out;
  }

  #altIds(endpoint: EndpointId, record: unknown): unknown {
    const alt = (id: string) => this.#toAlt.get(id) ?? id;
    const r = record as Record<string, unknown>;
    if (endpoint.startsWith('contacts.')) {
      return { ...r, contactID: alt(r.contactID as string) };
    }
    const events = EVENT_GROUP_FIELD[endpoint];
    if (events === undefined) return record;
    return {
      ...r,
      [events]: (r[events] as { recipient: { recipientID: string } }[]).map((e) => ({
        ...e,
        recipient: { ...e.recipient, recipientID: alt(e.recipient.recipientID) },
      })),
    };
  }
}

/**
 * The `contact-ids-alternative` id of a normalised email: `c-` and the first 22 characters
 * of the base64url SHA-256 of the email (132 bits; the constructor checks that the dataset's
 * emails do not collide). Matches the suite's id pattern `[A-Za-z0-9_-]+`.
 */
export function alternativeContactId(normalisedEmail: string): string {
  return `c-${createHash('sha256').update(normalisedEmail, 'utf8').digest('base64url').slice(0, 22)}`;
}

/** The array field of the event groups of endpoints 9 and 11. */
const EVENT_GROUP_FIELD: Partial<Record<EndpointId, 'clicks' | 'opens'>> = {
  'clicks.list': 'clicks',
  'opens.list': 'opens',
};

/** The timestamp field of an event of endpoints 10 and 12, and inside the groups' details. */
const EVENT_DATE: Partial<Record<EndpointId, 'clickDate' | 'openDate'>> = {
  'clicks.tag': 'clickDate',
  'opens.tag': 'openDate',
  'clicks.list': 'clickDate',
  'opens.list': 'openDate',
};

/**
 * `event-ties-reversed`: events of one tag with the same instant come in reverse order
 * (spec §5 Revision 2: ties in any order). Endpoints 10 and 12 list one tag's events;
 * 9 and 11 list them inside each tag's group.
 */
function reverseTies(endpoint: EndpointId, records: unknown[]): unknown[] {
  const field = EVENT_DATE[endpoint];
  if (field === undefined) return records;
  const group = EVENT_GROUP_FIELD[endpoint];
  if (group === undefined) {
    return reverseRuns(records, (e) => (e as Record<string, string>)[field]!);
  }
  return records.map((g) => {
    const r = g as Record<string, unknown>;
    const events = r[group] as { details: Record<string, string> }[];
    return { ...r, [group]: reverseRuns(events, (e) => e.details[field]!) };
  });
}

/** `items` with every run of consecutive items of the same instant reversed. */
function reverseRuns<T>(items: readonly T[], timestamp: (item: T) => string): T[] {
  const out: T[] = [];
  let start = 0;
  while (start < items.length) {
    const t = Date.parse(timestamp(items[start]!));
    let end = start + 1;
    while (end < items.length && Date.parse(timestamp(items[end]!)) === t) end++;
    for (let i = end - 1; i >= start; i--) out.push(items[i]!);
    start = end;
  }
  return out;
}

/** Fields that hold a timestamp (spec §9), at any depth of a record. */
const TIMESTAMP_FIELDS = new Set(['dateSent', 'dateLastSent', 'clickDate', 'openDate']);
const WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * `fractional-seconds`: every whole-second timestamp as `…:SS.000Z`, the same instant
 * (spec §9 Revision 2).
 */
function withFractionalSeconds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withFractionalSeconds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      TIMESTAMP_FIELDS.has(k) && typeof v === 'string' && WHOLE_SECONDS.test(v)
        ? `${v.slice(0, -1)}.000Z`
        : withFractionalSeconds(v);
  }
  return out;
}

/** The record kind each endpoint answers, for the `object` extra field. */
const RECORD_KIND: Record<EndpointId, string> = {
  'teams.list': 'team_member',
  'teams.member': 'team_member',
  'teams.group': 'team_member',
  'teams.tags': 'tag',
  'teams.memberTags': 'tag',
  'stats.team': 'stats_summary',
  'stats.teamAlias': 'stats_summary',
  'stats.group': 'stats_summary',
  'stats.member': 'stats_summary',
  'clicks.list': 'click_group',
  'clicks.tag': 'click',
  'opens.list': 'open_group',
  'opens.tag': 'open',
  'tags.daily': 'daily_counts',
  'contacts.list': 'contact',
  'contacts.get': 'contact',
  'contacts.tag': 'contact',
};

/**
 * `extra-fields`: the fields every record of `endpoint` carries beyond the profile's
 * (spec §9 Revision 2): `object`, the record kind, and `revision`, 2.
 */
export function extraFieldsOf(endpoint: EndpointId): { object: string; revision: number } {
  return { object: RECORD_KIND[endpoint], revision: 2 };
}
