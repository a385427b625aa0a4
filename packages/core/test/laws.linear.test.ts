import { setFlagsFromString } from 'node:v8';
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { contactsOf } from '../src/aggregate/contacts.ts';
import { contactOf, recipientEmails } from '../src/aggregate/rules.ts';
import type { Caller } from '../src/aggregate/types.ts';
import type { Contact } from '../src/contact.ts';
import type { Dataset } from '../src/dataset/schema.ts';
import { normaliseEmail } from '../src/dataset/schema.ts';
import { firstOf, sameInstant } from '../src/laws/helpers.ts';
import {
  type ContactView,
  contactCountersOverTheirTags,
  contactCountsCallerTags,
  dailyAreDistinctRecipients,
  plainEvents,
  plainEventsByTag,
  uniqueOpensAreDistinctRecipients,
} from '../src/laws.ts';
import { arbDatasetWithCaller, arbDayFor } from '../src/testing.ts';
import { indexOf } from './indexes.ts';

/*
 * The laws the suite runs on lists read over HTTP do constant work per record: each input is
 * indexed once (contactsOf, plainEventsByTag) instead of calling a plain rule per record over
 * every record. These properties hold the fast forms to the definitional ones (the plain
 * rules of aggregate/rules.ts applied per record), on the index's answers and on answers
 * broken in the ways a vendor's could be: same verdict, same words.
 */

const RUNS = { numRuns: 60 };

/**
 * REL-CONTACTS-TAGS as the rule states it: the recipients of the visible tags in email order,
 * then each contact against `contactOf` (every tag and event scanned again per contact).
 */
function contactsTagsDefinitional({ contacts, tags, opens, clicks }: ContactView) {
  const want = recipientEmails(tags);
  const got = new Set(contacts.map((c) => normaliseEmail(c.email)));
  const missing = want.find((e) => !got.has(e));
  if (missing !== undefined) return `recipient ${missing} of a visible tag is not a contact`;
  const extra = [...got].find((e) => !want.includes(e));
  if (extra !== undefined) return `contact ${extra} is not a recipient of a visible tag`;
  return firstOf(contacts, (c) => {
    const email = normaliseEmail(c.email);
    const expected = contactOf(email, tags, opens, clicks)!;
    const field = (Object.keys(expected.stats) as (keyof Contact['stats'])[]).find(
      (k) => c.stats[k] !== expected.stats[k],
    );
    if (field !== undefined)
      return `contact ${c.contactID} (${email}): stats.${field} ${c.stats[field]}, expected ${expected.stats[field]} over the ${expected.stats.totalSent} visible tags sent to it`;
    return sameInstant(c.dateLastSent, expected.dateLastSent)
      ? undefined
      : `contact ${c.contactID} (${email}): dateLastSent ${c.dateLastSent}, expected ${expected.dateLastSent}`;
  });
}

function viewOf(dataset: Dataset, caller: Caller): ContactView {
  const idx = indexOf(dataset);
  return {
    contacts: idx.contacts(caller),
    tags: idx.tags(caller, {})!,
    opens: plainEvents(idx.openGroups(caller, {})),
    clicks: plainEvents(idx.clickGroups(caller, {})),
  };
}

/** How a vendor's answers may break: nothing, or one record dropped, added or changed. */
const MUTATIONS = [
  'none',
  'drop-contact',
  'extra-contact',
  'counter',
  'date-last-sent',
  'drop-open',
  'drop-click',
  'drop-tag',
  'recipient-spelling',
  'duplicate-tag',
] as const;
type Mutation = (typeof MUTATIONS)[number];

function mutate(v: ContactView, m: Mutation, pick: number): ContactView {
  const at = <T>(xs: readonly T[]) => (xs.length === 0 ? -1 : pick % xs.length);
  const without = <T>(xs: readonly T[], i: number) => xs.filter((_, j) => j !== i);
  switch (m) {
    case 'none':
      return v;
    case 'drop-contact':
      return { ...v, contacts: without(v.contacts, at(v.contacts)) };
    case 'extra-contact': {
      const model = v.contacts[0];
      if (model === undefined) return v;
      const stranger = { ...model, contactID: 'x', email: 'nobody@nowhere.test' };
      return { ...v, contacts: [...v.contacts, stranger] };
    }
    case 'counter':
    case 'date-last-sent': {
      const i = at(v.contacts);
      return {
        ...v,
        contacts: v.contacts.map((c, j) =>
          j !== i
            ? c
            : m === 'counter'
              ? { ...c, stats: { ...c.stats, [`${['total', 'unique'][pick % 2]}Opens`]: 99 } }
              : { ...c, dateLastSent: '1999-01-01T00:00:00Z' },
        ),
      };
    }
    case 'drop-open':
      return { ...v, opens: without(v.opens, at(v.opens)) };
    case 'drop-click':
      return { ...v, clicks: without(v.clicks, at(v.clicks)) };
    case 'drop-tag':
      return { ...v, tags: without(v.tags, at(v.tags)) };
    case 'recipient-spelling':
      return {
        ...v,
        contacts: v.contacts.map((c) => ({ ...c, email: ` ${c.email.toUpperCase()}` })),
        opens: v.opens.map((e) => ({ ...e, email: e.email.toUpperCase() })),
      };
    case 'duplicate-tag': {
      const i = at(v.tags);
      return i < 0 ? v : { ...v, tags: [...v.tags, v.tags[i]!] };
    }
  }
}

describe('laws in linear time equal their definitional forms', () => {
  fcTest.prop([arbDatasetWithCaller], RUNS)(
    'contactsOf(tags, opens, clicks) is contactOf of every recipient, and nothing else',
    ({ dataset, caller }) => {
      const { tags, opens, clicks } = viewOf(dataset, caller);
      const fast = contactsOf(tags, opens, clicks);
      const emails = recipientEmails(tags);
      expect([...fast.keys()].sort()).toEqual(emails);
      for (const e of emails) expect(fast.get(e)).toEqual(contactOf(e, tags, opens, clicks));
    },
  );

  fcTest.prop([arbDatasetWithCaller, fc.constantFrom(...MUTATIONS), fc.nat(10_000)], RUNS)(
    'REL-CONTACTS-TAGS (linear) gives the verdict and words of the rule applied per contact',
    ({ dataset, caller }, mutation, pick) => {
      const view = mutate(viewOf(dataset, caller), mutation, pick);
      expect(contactCountersOverTheirTags.check(view)).toBe(contactsTagsDefinitional(view));
    },
  );

  fcTest.prop([arbDatasetWithCaller, fc.constantFrom(...MUTATIONS), fc.nat(10_000)], RUNS)(
    'REL-TAG-COUNTERS-EVENTS on each tag’s own events (plainEventsByTag) is the law on every event',
    ({ dataset, caller }, mutation, pick) => {
      const idx = indexOf(dataset);
      const view = mutate(viewOf(dataset, caller), mutation, pick);
      const openGroups = idx.openGroups(caller, {});
      const clickGroups = idx.clickGroups(caller, {});
      const opens = plainEventsByTag(openGroups);
      const clicks = plainEventsByTag(clickGroups);
      for (const tag of view.tags) {
        const all = uniqueOpensAreDistinctRecipients.check({
          tag,
          opens: plainEvents(openGroups),
          clicks: plainEvents(clickGroups),
        });
        const own = uniqueOpensAreDistinctRecipients.check({
          tag,
          opens: opens.get(tag.tagID) ?? [],
          clicks: clicks.get(tag.tagID) ?? [],
        });
        expect(own).toBe(all);
      }
    },
  );

  fcTest.prop(
    [arbDatasetWithCaller.chain((x) => arbDayFor(x.dataset).map((day) => ({ ...x, day })))],
    RUNS,
  )(
    'REL-DAILY-DISTINCT-RECIPIENTS on each tag’s own events is the law on every event',
    ({ dataset, caller, day }) => {
      const idx = indexOf(dataset);
      const openGroups = idx.openGroups(caller, {});
      const clickGroups = idx.clickGroups(caller, {});
      const opens = plainEventsByTag(openGroups);
      const clicks = plainEventsByTag(clickGroups);
      for (const tag of idx.tags(caller, {})!) {
        for (const daily of [
          { opens: 0, clicks: 0 },
          { opens: 1, clicks: 1 },
        ]) {
          const input = { tag, date: day, daily };
          expect(
            dailyAreDistinctRecipients.check({
              ...input,
              opens: opens.get(tag.tagID) ?? [],
              clicks: clicks.get(tag.tagID) ?? [],
            }),
          ).toBe(
            dailyAreDistinctRecipients.check({
              ...input,
              opens: plainEvents(openGroups),
              clicks: plainEvents(clickGroups),
            }),
          );
        }
      }
    },
  );

  fcTest.prop([arbDatasetWithCaller], RUNS)(
    'plainEventsByTag holds every event of plainEvents once, under its tag, in list order',
    ({ dataset, caller }) => {
      const groups = indexOf(dataset).openGroups(caller, {});
      const byTag = plainEventsByTag(groups);
      const all = plainEvents(groups);
      expect([...byTag.values()].flat().length).toBe(all.length);
      for (const [tagID, events] of byTag)
        expect(events).toEqual(all.filter((e) => e.tagID === tagID));
    },
  );

  fcTest.prop([arbDatasetWithCaller, fc.constantFrom(...MUTATIONS), fc.nat(10_000)], RUNS)(
    'REL-CONTACT-CALLER-TAGS (one pass over tags and events) gives the words of contactOf over every tag and event',
    ({ dataset, caller }, mutation, pick) => {
      const view = mutate(viewOf(dataset, caller), mutation, pick);
      for (const contact of view.contacts.slice(0, 5)) {
        const input = { caller: 'c', contact, ...view };
        const email = normaliseEmail(contact.email);
        const expected = contactOf(email, view.tags, view.opens, view.clicks);
        const definitional =
          expected === undefined
            ? `contact ${contact.contactID} (${email}) answers c though no tag it sees was sent to it`
            : undefined;
        const got = contactCountsCallerTags.check(input);
        if (definitional !== undefined) expect(got).toBe(definitional);
        else {
          const same =
            (Object.keys(expected!.stats) as (keyof Contact['stats'])[]).every(
              (k) => contact.stats[k] === expected!.stats[k],
            ) && sameInstant(contact.dateLastSent, expected!.dateLastSent);
          expect(got === undefined).toBe(same);
        }
      }
    },
  );
});

describe('the events the laws take cost a small constant each', () => {
  /** V8's `%HaveSameMap`: whether two objects share a hidden class (Node only). */
  function sameHiddenClass(): (a: object, b: object) => boolean {
    setFlagsFromString('--allow-natives-syntax');
    return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  }

  fcTest.prop([fc.integer({ min: 2, max: 300 })], { numRuns: 5 })(
    'law: plainEvents builds every event with one hidden class (no map and descriptors per event)',
    (n) => {
      const same = sameHiddenClass();
      // groups as they come from JSON.parse (a page read over HTTP), opens and clicks
      const groups = JSON.parse(
        JSON.stringify(
          Array.from({ length: n }, (_, i) => ({
            tagID: `t${i}`,
            [i % 2 ? 'opens' : 'clicks']: [
              {
                recipient: { email: `r${i}@example.com`, name: 'R' },
                details: {
                  [i % 2 ? 'openDate' : 'clickDate']: '2024-01-01T00:00:00Z',
                  device: 'desktop',
                },
              },
            ],
          })),
        ),
      );
      const events = plainEvents(groups);
      expect(events).toHaveLength(n);
      expect(events.filter((e) => same(e, events[0]!))).toHaveLength(n);
    },
  );
});
