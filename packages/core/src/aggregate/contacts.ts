import type { Contact } from '../contact.ts';
import type { DatasetTag } from '../dataset/schema.ts';
import { normaliseEmail } from '../dataset/schema.ts';
import { runAtOnce, type Steps } from '../slices.ts';
import { contactIdOfNormalised } from './contact-id.ts';
import {
  type CountedEvent,
  canonicalTimestamp,
  compareTags,
  deviceClass,
  zeroCounters,
} from './rules.ts';

/*
 * The contacts of a set of tags in linear time: the form of the contact rule (rules.ts,
 * `contactOf`, spec §10) that the laws run on lists read over HTTP.
 */

/**
 * The contact record of every recipient of `tags` (spec §10), keyed by normalised email,
 * in first-seen order: for each key the same record as {@link contactOf}`(key, tags, opens,
 * clicks)`, computed in one pass over the tags' recipients and one over the events (each
 * record, each recipient and each event is read once; sets and maps, no scan per contact).
 * This is the form to run on lists read over HTTP; `contactOf` states the rule plainly.
 */
export function contactsOf(
  tags: readonly Pick<DatasetTag, 'tagID' | 'dateSent' | 'recipients'>[],
  opens: readonly CountedEvent[],
  clicks: readonly CountedEvent[],
): Map<string, Contact> {
  return runAtOnce(contactsOfSteps(tags, opens, clicks));
}

/**
 * {@link contactsOf} yielding after each tag, event and contact (`Steps`, slices.ts): the
 * form a caller runs in time slices on long lists.
 */
export function* contactsOfSteps(
  tags: readonly Pick<DatasetTag, 'tagID' | 'dateSent' | 'recipients'>[],
  opens: readonly CountedEvent[],
  clicks: readonly CountedEvent[],
): Steps<Map<string, Contact>> {
  interface Acc {
    /** The first of its tags in tag order, as shown (spec §5 Revision 3). */
    shown: Pick<DatasetTag, 'tagID' | 'dateSent'>;
    name: string;
    stats: Contact['stats'];
  }
  const acc = new Map<string, Acc>();
  /** The normalised emails each tagID was sent to (a tag listed twice: the union). */
  const sentTo = new Map<string, Set<string>>();
  for (const t of tags) {
    const shown = { tagID: t.tagID, dateSent: canonicalTimestamp(t.dateSent) };
    const onThisTag = new Map<string, string>();
    for (const r of t.recipients) {
      const key = normaliseEmail(r.email);
      if (!onThisTag.has(key)) onThisTag.set(key, r.name);
    }
    const emails = sentTo.get(t.tagID) ?? new Set<string>();
    sentTo.set(t.tagID, emails);
    for (const [key, name] of onThisTag) {
      emails.add(key);
      const a = acc.get(key);
      if (a === undefined) {
        acc.set(key, { shown, name, stats: { ...zeroCounters(), totalSent: 1 } });
        continue;
      }
      a.stats.totalSent++;
      if (compareTags(shown, a.shown) < 0) {
        a.shown = shown;
        a.name = name;
      }
    }
    yield;
  }
  const seen = new Set<string>();
  function* count(events: readonly CountedEvent[], kind: 'Opens' | 'Clicks'): Steps<void> {
    seen.clear();
    for (const e of events) {
      yield;
      const key = normaliseEmail(e.email);
      if (sentTo.get(e.tagID)?.has(key) !== true) continue;
      const s = acc.get(key)!.stats;
      s[`total${kind}`]++;
      const pair = `${e.tagID}\u0000${key}`;
      if (!seen.has(pair)) {
        seen.add(pair);
        s[`unique${kind}`]++;
      }
      const cls = deviceClass(e.device);
      if (cls === 'desktop') s[`desktop${kind}`]++;
      else if (cls === 'mobile') s[`mobile${kind}`]++;
    }
  }
  yield* count(opens, 'Opens');
  yield* count(clicks, 'Clicks');
  const out = new Map<string, Contact>();
  for (const [key, a] of acc) {
    yield;
    out.set(key, {
      contactID: contactIdOfNormalised(key),
      name: a.name,
      email: key,
      dateLastSent: a.shown.dateSent,
      stats: a.stats,
    });
  }
  return out;
}
