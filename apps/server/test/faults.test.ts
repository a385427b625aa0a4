import { buildIndex, type Caller } from '@tagtrack/core';
import { canonicalDataset as ds } from '@tagtrack/core/canonical';
import { describe, expect, test } from 'vitest';
import {
  createServer,
  FAULT_NAMES,
  FAULTS,
  type FaultName,
  type ServerOptions,
  type TagtrackServer,
} from '../src/index.ts';
import { credential, expectError, type GetOptions, get } from './helpers.ts';

const index = buildIndex(ds);
const adminCred = credential(1, 'admin');
const admin: Caller = {
  memberID: adminCred.memberID,
  teamID: adminCred.teamID,
  accountType: 'admin',
};

/** The day of the newest tag the team 1 admin sees, and a day with clicks of an older tag. */
const newestTag = index.tags(admin, {})![0]!;
const sendDay = newestTag.dateSent.slice(0, 10);
const clickGroup = index
  .clickGroups(admin, {})
  .find((g) =>
    g.clicks.some(
      (c) =>
        c.details.clickDate.slice(0, 10) !==
        ds.tags.find((t) => t.tagID === g.tagID)!.dateSent.slice(0, 10),
    ),
  )!;
const lateClickDay = clickGroup.clicks
  .map((c) => c.details.clickDate.slice(0, 10))
  .find((d) => d !== ds.tags.find((t) => t.tagID === clickGroup.tagID)!.dateSent.slice(0, 10))!;
/** A (tag, day) on which one recipient opened the tag more than once. */
const repeated = (() => {
  const seen = new Map<string, number>();
  const visible = new Set(index.tags(admin, {})!.map((t) => t.tagID));
  for (const o of ds.opens) {
    if (!visible.has(o.tagID)) continue;
    const k = `${o.tagID}|${o.email.trim().toLowerCase()}|${o.date.slice(0, 10)}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
    if (seen.get(k)! > 1) return { tagID: o.tagID, day: o.date.slice(0, 10) };
  }
  throw new Error('canonical dataset has no repeated open on one day');
})();
const otherTeamMember = ds.teams[1]!.members[0]!.memberID;

interface Probe {
  /** Options of both servers besides the fault. */
  options?: ServerOptions;
  /** Requests, sent in order to each server; every response is compared. */
  requests: [path: string, query: string, options?: GetOptions][];
}

const PROBES: Record<FaultName, Probe> = {
  'unique-opens-as-total': { requests: [['/teams/tags', '']] },
  'end-day-exclusive': { requests: [['/teams/tags', `start=${sendDay}&end=${sendDay}`]] },
  'ignore-is-opened': { requests: [['/teams/tags', 'isOpened=true']] },
  'aggregate-drops-record': { requests: [['/stats', 'aggregateData=true']] },
  'page-overlap': { options: { pageSize: 10 }, requests: [['/teams/tags', '']] },
  'json-content-type-text': { requests: [['/teams', '']] },
  'html-unescaped': { requests: [['/teams/tags', 'rtn=html']] },
  'bad-date-200': { requests: [['/teams/tags', 'start=2024-02-30']] },
  'scope-leak-team': { requests: [['/teams', '']] },
  'tablet-not-mobile': { requests: [['/teams/tags', '']] },
  'daily-counts-total': {
    requests: [[`/tags/daily/${repeated.tagID}`, `date=${repeated.day}`]],
  },
  'unknown-param-ignored': { requests: [['/teams/tags', 'isOpen=true']] },
  'signature-not-checked': {
    requests: [['/teams', '', { as: { ...adminCred, accessKey: 'not-the-key' } }]],
  },
  'out-of-scope-403': { requests: [[`/teams/member/${otherTeamMember}`, '']] },
  'alias-ignores-type': { requests: [['/teams/stats', 'type=user&aggregateData=true']] },
  'contacts-all-team-tags': { requests: [['/contacts', '', { as: credential(1, 'manager') }]] },
  'error-body-not-json': { requests: [['/no-such-path', '']] },
  'head-total-differs': { requests: [['/teams', 'cursor=1', { method: 'HEAD' }]] },
  'clicks-window-by-send-date': {
    requests: [['/clicks', `start=${lateClickDay}&end=${lateClickDay}`]],
  },
  'rate-limit-no-retry-after': {
    options: { rateLimit: { limit: 1, windowMs: 60_000 } },
    requests: [
      ['/teams', ''],
      ['/teams', ''],
    ],
  },
};

async function observe(server: TagtrackServer, probe: Probe): Promise<string[]> {
  const out: string[] = [];
  for (const [path, query, options] of probe.requests) {
    const res = await get(server, path, query, options);
    const headers = ['content-type', 'x-total-count', 'link', 'retry-after']
      .map((h) => `${h}: ${res.headers.get(h)}`)
      .join('\n');
    out.push(`${res.status}\n${headers}\n\n${await res.text()}`);
  }
  return out;
}

describe('fault injection', () => {
  test('FAULTS describes every fault name once, with an area and a description', () => {
    expect(FAULTS.map((f) => f.name)).toEqual([...FAULT_NAMES]);
    expect(FAULT_NAMES).toHaveLength(20);
    for (const f of FAULTS) {
      expect(f.area).not.toBe('');
      expect(f.description.length).toBeGreaterThan(10);
    }
  });

  test('out-of-scope-403 answers a decisions §5 error body with the reason phrase Forbidden', async () => {
    const server = createServer({ faults: ['out-of-scope-403'] });
    const body = await expectError(await get(server, `/teams/member/${otherTeamMember}`), 403);
    expect(body.error).toBe('Forbidden');
  });

  test('an unknown fault name is refused', () => {
    expect(() => createServer({ faults: ['no-such-fault' as FaultName] })).toThrow(/unknown fault/);
  });

  test.each(FAULT_NAMES.map((f) => [f]))(
    '%s changes some response on the canonical dataset',
    async (fault) => {
      const probe = PROBES[fault];
      const clock = () => Date.UTC(2025, 0, 1);
      const clean = createServer({ ...probe.options, clock });
      const faulty = createServer({ ...probe.options, clock, faults: [fault] });
      const expected = await observe(clean, probe);
      const actual = await observe(faulty, probe);
      expect(actual).not.toEqual(expected);
      // the difference comes from the fault: a second clean server answers the same
      expect(await observe(createServer({ ...probe.options, clock }), probe)).toEqual(expected);
    },
  );
});
