import { fc, test as fcTest } from '@fast-check/vitest';
import {
  Dataset,
  type DatasetEvent,
  formatTimestamp,
  normaliseEmail,
  utcDay,
  validateDataset,
} from '@tagtrack/core';
import { describe, expect, it } from 'vitest';
import { CANONICAL_SEED, generateDataset } from '../src/generate.ts';
import { LOCATIONS } from '../src/locations.ts';
import { Prng } from '../src/prng.ts';
import {
  expectedEvents,
  formatEpochSeconds,
  MAX_CLICKS_PER_RECIPIENT,
  MAX_OPENS_PER_RECIPIENT,
  SCALES,
  type Scale,
  scaleForEvents,
} from '../src/scales.ts';
import { generatorProblems } from './dataset-checks.ts';

const arbDay = fc
  .integer({ min: 0, max: 3 * 365 })
  .map((d) => utcDay(Date.UTC(2023, 0, 1) + d * 86_400_000));
const arbRate = fc.double({ min: 0, max: 1, noNaN: true });
const arbScale: fc.Arbitrary<Scale> = fc.record({
  teams: fc.integer({ min: 1, max: 3 }),
  membersPerTeam: fc.integer({ min: 1, max: 9 }),
  groupsPerTeam: fc.integer({ min: 0, max: 3 }),
  tagsPerMember: fc.integer({ min: 0, max: 5 }),
  recipientsPerTag: fc
    .integer({ min: 1, max: 6 })
    .chain((min) => fc.integer({ min, max: 10 }).map((max) => ({ min, max }))),
  contactPoolSize: fc.integer({ min: 1, max: 30 }),
  openRate: arbRate,
  repeatOpenRate: arbRate,
  clickRate: arbRate,
  repeatClickRate: arbRate,
  clicksWithoutOpenRate: arbRate,
  dateRange: fc
    .tuple(arbDay, arbDay)
    .map(([a, b]) => (a <= b ? { start: a, end: b } : { start: b, end: a })),
});
const arbSeed = fc.integer({ min: -(2 ** 40), max: 2 ** 40 });

/** Events per (tag, normalised email). */
function eventsPerRecipient(events: readonly DatasetEvent[]): Map<string, DatasetEvent[]> {
  const map = new Map<string, DatasetEvent[]>();
  for (const e of events) {
    const key = `${e.tagID} ${normaliseEmail(e.email)}`;
    const list = map.get(key);
    if (list === undefined) map.set(key, [e]);
    else list.push(e);
  }
  return map;
}

describe('generateDataset determinism', () => {
  fcTest.prop([arbSeed], { numRuns: 15 })('the same seed gives deep-equal datasets', (seed) => {
    expect(generateDataset({ seed, scale: 'tiny' })).toEqual(
      generateDataset({ seed, scale: 'tiny' }),
    );
  });

  fcTest.prop([arbSeed, arbSeed], { numRuns: 15 })(
    'different seeds give different datasets (no shared tag id)',
    (a, b) => {
      fc.pre(a !== b);
      const tagsA = new Set(generateDataset({ seed: a, scale: 'tiny' }).tags.map((t) => t.tagID));
      const tagsB = generateDataset({ seed: b, scale: 'tiny' }).tags.map((t) => t.tagID);
      expect(tagsB.filter((id) => tagsA.has(id))).toEqual([]);
    },
  );

  it('does not depend on Math.random', () => {
    const before = generateDataset({ seed: 3, scale: 'tiny' });
    const original = Math.random;
    Math.random = () => 0.5;
    try {
      expect(generateDataset({ seed: 3, scale: 'tiny' })).toEqual(before);
    } finally {
      Math.random = original;
    }
  });
});

describe('generateDataset validity', () => {
  fcTest.prop([arbSeed, arbScale])(
    'every generated dataset passes the Dataset schema and is referentially consistent',
    (seed, scale) => {
      const dataset = generateDataset({ seed, scale });
      const parsed = Dataset.safeParse(dataset);
      expect(parsed.success, parsed.error?.message).toBe(true);
      expect(generatorProblems(dataset)).toEqual([]);
      expect(validateDataset(dataset)).toEqual([]);
      expect(dataset.teams).toHaveLength(scale.teams);
      for (const team of dataset.teams) expect(team.members).toHaveLength(scale.membersPerTeam);
      expect(dataset.tags).toHaveLength(scale.teams * scale.membersPerTeam * scale.tagsPerMember);
    },
  );

  fcTest.prop([arbSeed, arbScale], { numRuns: 50 })(
    'repeats per (tag, recipient) stay within the caps, and recipients within the pool',
    (seed, scale) => {
      const dataset = generateDataset({ seed, scale });
      for (const list of eventsPerRecipient(dataset.opens).values()) {
        expect(list.length).toBeLessThanOrEqual(MAX_OPENS_PER_RECIPIENT);
      }
      for (const list of eventsPerRecipient(dataset.clicks).values()) {
        expect(list.length).toBeLessThanOrEqual(MAX_CLICKS_PER_RECIPIENT);
      }
      for (const tag of dataset.tags) {
        expect(tag.recipients.length).toBeGreaterThanOrEqual(
          Math.min(scale.recipientsPerTag.min, scale.contactPoolSize),
        );
        expect(tag.recipients.length).toBeLessThanOrEqual(scale.recipientsPerTag.max);
      }
      const contacts = new Set(dataset.tags.flatMap((t) => t.recipients.map((r) => r.email)));
      expect(contacts.size).toBeLessThanOrEqual(scale.contactPoolSize);
    },
  );

  it('the consistency check reports corrupted datasets, so the laws above can fail', () => {
    const good = generateDataset({ seed: 2, scale: 'small' });
    const corrupt = (edit: (d: Dataset) => void): string[] => {
      const d = structuredClone(good);
      edit(d);
      return generatorProblems(d);
    };
    const strangerEmail = corrupt((d) => {
      d.opens[0]!.email = 'stranger@example.com';
    });
    expect(strangerEmail).toEqual([expect.stringContaining('not a recipient')]);
    const millis = corrupt((d) => {
      d.clicks[0]!.date = d.clicks[0]!.date.replace('Z', '.5Z');
    });
    expect(millis).toEqual([expect.stringContaining('format')]);
    const beforeSend = corrupt((d) => {
      d.opens[0]!.date = '2000-01-01T00:00:00Z';
    });
    expect(beforeSend).toEqual([expect.stringContaining('not within the days after dateSent')]);
    const duplicate = corrupt((d) => {
      d.tags[1]!.tagID = d.tags[0]!.tagID;
    });
    expect(duplicate).toContainEqual(expect.stringContaining('duplicate id'));
    const foreignGroup = corrupt((d) => {
      d.teams[0]!.members[1]!.groupID = d.teams[1]!.groups[0]!.groupID;
    });
    expect(foreignGroup).toEqual([expect.stringContaining('is not of its team')]);
    const noCredential = corrupt((d) => {
      d.credentials.pop();
    });
    expect(noCredential).toEqual([expect.stringContaining('not exactly one credential')]);
  });

  it.each(['tiny', 'small'] as const)('the %s scale is valid and consistent', (scale) => {
    const dataset = generateDataset({ seed: 11, scale });
    expect(Dataset.safeParse(dataset).success).toBe(true);
    expect(generatorProblems(dataset)).toEqual([]);
    expect(validateDataset(dataset)).toEqual([]);
  });

  it('keeps built-in scales within 2023-2025 (tags and events)', () => {
    const dataset = generateDataset({ seed: 5, scale: 'small' });
    const dates = [
      ...dataset.tags.map((t) => t.dateSent),
      ...dataset.opens.map((e) => e.date),
      ...dataset.clicks.map((e) => e.date),
    ];
    for (const d of dates) expect(d).toMatch(/^202[345]-/);
  });

  it('rejects bad options with errors naming what was wrong', () => {
    expect(() => generateDataset({ seed: 1.5, scale: 'tiny' })).toThrow(
      /seed must be a safe integer/,
    );
    expect(() => generateDataset({ seed: 1, scale: 'huge' as 'tiny' })).toThrow(
      /unknown scale "huge"; expected one of tiny, small, medium, large/,
    );
    expect(() => generateDataset({ seed: 1, scale: { ...SCALES.tiny, openRate: 2 } })).toThrow(
      /openRate/,
    );
    expect(() =>
      generateDataset({ seed: 1, scale: { ...SCALES.tiny, recipientsPerTag: { min: 5, max: 2 } } }),
    ).toThrow(/recipientsPerTag.min must be <= recipientsPerTag.max/);
    expect(() =>
      generateDataset({
        seed: 1,
        scale: { ...SCALES.tiny, dateRange: { start: '2024-02-30', end: '2024-03-01' } },
      }),
    ).toThrow(/dateRange/);
    expect(() => scaleForEvents(0)).toThrow(/events must be a positive integer/);
  });
});

describe('features of the small scale', () => {
  const seeds = [CANONICAL_SEED, 1, 99];

  it.each(seeds)(
    'seed %i: teams, groups, account types, members with and without group',
    (seed) => {
      const { teams } = generateDataset({ seed, scale: 'small' });
      expect(teams.length).toBeGreaterThanOrEqual(2);
      for (const team of teams) {
        expect(team.groups.length).toBeGreaterThanOrEqual(1);
        const has = (type: string, grouped: boolean) =>
          team.members.some((m) => m.accountType === type && (m.groupID !== undefined) === grouped);
        expect(team.members.some((m) => m.accountType === 'admin')).toBe(true);
        expect(has('manager', true)).toBe(true);
        expect(has('manager', false)).toBe(true);
        expect(has('user', true)).toBe(true);
        expect(has('user', false)).toBe(true);
      }
      // The same group name in two teams: a name resolves only within the caller's team.
      const names = teams.map((t) => new Set(t.groups.map((g) => g.groupName)));
      expect([...(names[0] ?? [])].some((n) => names[1]?.has(n))).toBe(true);
    },
  );

  it.each(seeds)('seed %i: devices, locations, repeat opens, clicks without opens', (seed) => {
    const dataset = generateDataset({ seed, scale: 'small' });
    const events = [...dataset.opens, ...dataset.clicks];
    expect(new Set(events.map((e) => e.device))).toEqual(
      new Set(['desktop', 'mobile', 'tablet', 'unknown']),
    );
    for (const e of events) {
      expect(e.latitude).toMatch(/^-?\d{1,2}\.\d+$/);
      expect(e.longitude).toMatch(/^-?\d{1,3}\.\d+$/);
    }
    expect(events.some((e) => e.latitude.startsWith('-'))).toBe(true);
    expect(new Set(events.map((e) => e.counry)).size).toBeGreaterThan(5);
    expect(events.some((e) => e.city === '')).toBe(true);
    expect(events.some((e) => /[^\x20-\x7e]/.test(e.city))).toBe(true);

    const opens = eventsPerRecipient(dataset.opens);
    const clicks = eventsPerRecipient(dataset.clicks);
    const repeats = [...opens.values()].filter((l) => l.length >= 2);
    expect(repeats.length).toBeGreaterThan(0);
    expect(repeats.some((l) => new Set(l.map((e) => e.date.slice(0, 10))).size >= 2)).toBe(true);
    expect([...clicks.keys()].some((k) => !opens.has(k))).toBe(true);
  });

  it.each(seeds)('seed %i: events on later days than the send day, varied emails', (seed) => {
    const dataset = generateDataset({ seed, scale: 'small' });
    const sentDay = new Map(dataset.tags.map((t) => [t.tagID, t.dateSent.slice(0, 10)]));
    const events = [...dataset.opens, ...dataset.clicks];
    const later = events.filter((e) => e.date.slice(0, 10) !== sentDay.get(e.tagID));
    expect(later.length).toBeGreaterThan(events.length / 10);
    const varied = events.filter((e) => e.email !== normaliseEmail(e.email));
    expect(varied.some((e) => e.email !== e.email.trim())).toBe(true);
    expect(varied.some((e) => e.email.trim() !== e.email.trim().toLowerCase())).toBe(true);
  });

  it.each(seeds)('seed %i: hostile subjects and shared contacts', (seed) => {
    const dataset = generateDataset({ seed, scale: 'small' });
    const subjects = dataset.tags.map((t) => t.subject);
    for (const needle of ['<', '>', '&', '"', "'", '\t', '\n', '\\']) {
      expect(
        subjects.some((s) => s.includes(needle)),
        JSON.stringify(needle),
      ).toBe(true);
    }
    expect(subjects).toContain('Q3 <review> & "plan"\tété 🚀');
    expect(subjects.some((s) => /[\u{1F300}-\u{1FAFF}]/u.test(s))).toBe(true);
    expect(subjects.some((s) => /[À-ÿ]/.test(s))).toBe(true);
    const tagsPerContact = new Map<string, number>();
    for (const tag of dataset.tags) {
      for (const r of tag.recipients) {
        const key = normaliseEmail(r.email);
        tagsPerContact.set(key, (tagsPerContact.get(key) ?? 0) + 1);
      }
    }
    expect(Math.max(...tagsPerContact.values())).toBeGreaterThanOrEqual(3);
    expect(dataset.tags.some((t) => t.recipients.some((r) => r.name === ''))).toBe(true);
  });
});

describe('scales and event counts', () => {
  it('scaleForEvents(10_000) generates within 20% of 10,000 events', () => {
    const dataset = generateDataset({ seed: 42, scale: scaleForEvents(10_000) });
    const events = dataset.opens.length + dataset.clicks.length;
    expect(events).toBeGreaterThan(8_000);
    expect(events).toBeLessThan(12_000);
  });

  it.each([1_000, 10_000, 100_000, 1_000_000, 5_000_000])(
    'scaleForEvents(%i) expects the asked events within 5 percent',
    (n) => {
      const expected = expectedEvents(scaleForEvents(n));
      expect(Math.abs(expected - n) / n).toBeLessThan(0.05);
    },
  );

  it('expectedEvents predicts the generated count of tiny and small within 15%', () => {
    for (const scale of ['tiny', 'small'] as const) {
      const d = generateDataset({ seed: 8, scale });
      const actual = d.opens.length + d.clicks.length;
      expect(Math.abs(actual - expectedEvents(SCALES[scale])) / actual).toBeLessThan(0.15);
    }
  });

  it('built-in scales have the promised sizes (large expects well over one million events)', () => {
    expect(expectedEvents(SCALES.tiny)).toBeGreaterThan(150);
    expect(expectedEvents(SCALES.tiny)).toBeLessThan(300);
    expect(expectedEvents(SCALES.medium)).toBeGreaterThan(80_000);
    expect(expectedEvents(SCALES.medium)).toBeLessThan(120_000);
    // 1.08M expected; the standard deviation of the count is a few thousand.
    expect(expectedEvents(SCALES.large)).toBeGreaterThan(1_050_000);
    expect(SCALES.small.teams * SCALES.small.membersPerTeam * SCALES.small.tagsPerMember).toBe(300);
  });
});

describe('helpers', () => {
  fcTest.prop([fc.integer({ min: Date.UTC(2000, 0, 1) / 1000, max: Date.UTC(2100, 0, 1) / 1000 })])(
    'formatEpochSeconds(s) equals formatTimestamp(s * 1000)',
    (s) => {
      expect(formatEpochSeconds(s)).toBe(formatTimestamp(s * 1000));
    },
  );

  fcTest.prop([arbSeed, fc.integer({ min: 1, max: 2 ** 32 - 1 })])(
    'Prng.int(n) stays within [0, n) and Prng.hex(24) is 24 lowercase hex',
    (seed, n) => {
      const rng = new Prng(seed);
      for (let i = 0; i < 20; i++) {
        const x = rng.int(n);
        expect(Number.isInteger(x) && x >= 0 && x < n).toBe(true);
      }
      expect(rng.hex(24)).toMatch(/^[0-9a-f]{24}$/);
    },
  );

  it('Prng spreads values: 10,000 draws of int(10) fill every bucket near 1,000', () => {
    const rng = new Prng(1);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) buckets[rng.int(10)]! += 1;
    for (const b of buckets) expect(Math.abs(b - 1000)).toBeLessThan(150);
  });

  it('the location table has decimal-string coordinates in range', () => {
    for (const l of LOCATIONS) {
      expect(Math.abs(Number(l.latitude))).toBeLessThanOrEqual(90);
      expect(Math.abs(Number(l.longitude))).toBeLessThanOrEqual(180);
      expect(l.latitude).toMatch(/^-?\d+\.\d+$/);
    }
  });
});
