import {
  type Answer,
  type Dataset,
  type EndpointRequest,
  type EventRecipient,
  formatTimestamp,
  normaliseEmail,
  parseTimestampMs,
} from '@tagtrack/core';
import type { VariantName, VariantSet } from './index.ts';
import { needsDataset } from './records.ts';

/**
 * The `recipient` of the events of endpoints 9 and 11 (spec §9 Revision 3): what the
 * variants of that rule change, after core's index has answered. Core names an event's
 * recipient by the contact id of its normalised email, the name of the tag's first recipient
 * entry with that normalised email, and the normalised email. Variants (the free `email`
 * form): `event-recipient-email-stored` (the tag's stored spelling of that entry),
 * `event-recipient-email-as-sent` (the event's own spelling in the event log). The faults
 * of the `name` live with the store faults.
 */
export const RECIPIENT_VARIANTS = [
  'event-recipient-email-stored',
  'event-recipient-email-as-sent',
] as const satisfies readonly VariantName[];

/** One recipient entry of a tag, as stored. */
interface Entry {
  readonly name: string;
  readonly email: string;
}

type Group = { tagID: string } & Record<string, unknown>;
type GroupedEvent = { recipient: EventRecipient; details: Record<string, string> };

/** The events array of an event group of 9 or 11, and the date field of its details. */
const GROUP_FIELDS = {
  'opens.list': ['opens', 'openDate'],
  'clicks.list': ['clicks', 'clickDate'],
} as const;

/** The variants of the event recipient over one dataset (spec §9 Revision 3). */
export class EventRecipients {
  /** tagID -> its recipient entries in stored order. */
  readonly #entries = new Map<string, readonly Entry[]>();
  /** tagID, normalised email and instant (seconds) -> the event's own email, per kind. */
  readonly #asSent = new Map<string, string>();
  readonly #active: boolean;

  /** `dataset` is the data the store serves; with an active variant, it throws without one. */
  constructor(
    dataset: Dataset | undefined,
    readonly variants: VariantSet,
  ) {
    this.#active = variants.hasAny(RECIPIENT_VARIANTS);
    if (!this.#active) return;
    if (dataset === undefined) {
      throw new Error(needsDataset(RECIPIENT_VARIANTS.find((v) => variants.has(v))!));
    }
    for (const t of dataset.tags) this.#entries.set(t.tagID, t.recipients);
    if (variants.has('event-recipient-email-as-sent')) {
      for (const kind of ['opens', 'clicks'] as const)
        for (const e of dataset[kind]) {
          const key = eventKey(kind, e.tagID, normaliseEmail(e.email), e.date);
          if (!this.#asSent.has(key)) this.#asSent.set(key, e.email);
        }
    }
  }

  /** Whether any variant of this module is on (else {@link answerOut} is the identity). */
  get active(): boolean {
    return this.#active;
  }

  /** `answer` with the event recipients of 9 and 11 as the active variants write them. */
  answerOut(request: EndpointRequest, answer: Answer): Answer {
    const fields =
      request.endpoint === 'opens.list' || request.endpoint === 'clicks.list'
        ? GROUP_FIELDS[request.endpoint]
        : undefined;
    if (!this.#active || fields === undefined || answer.kind !== 'list') return answer;
    const [events, dateField] = fields;
    const records = (answer.records as Group[]).map((g) => ({
      ...g,
      [events]: (g[events] as GroupedEvent[]).map((e) => ({
        ...e,
        recipient: this.#recipient(events, g.tagID, e.recipient, e.details[dateField]!),
      })),
    }));
    return { kind: 'list', records };
  }

  #recipient(
    kind: 'opens' | 'clicks',
    tagID: string,
    recipient: EventRecipient,
    date: string,
  ): EventRecipient {
    const entries = this.#entries.get(tagID) ?? [];
    const email = normaliseEmail(recipient.email);
    const same = entries.filter((r) => normaliseEmail(r.email) === email);
    let out = recipient;
    if (this.variants.has('event-recipient-email-stored') && same.length > 0) {
      out = { ...out, email: same[0]!.email };
    }
    if (this.variants.has('event-recipient-email-as-sent')) {
      const sent = this.#asSent.get(eventKey(kind, tagID, email, date));
      if (sent !== undefined) out = { ...out, email: sent };
    }
    return out;
  }
}

/** The key of an event by kind, tag, normalised email and instant at seconds precision. */
function eventKey(kind: string, tagID: string, email: string, date: string): string {
  return `${kind}\u0000${tagID}\u0000${email}\u0000${formatTimestamp(parseTimestampMs(date))}`;
}
