import {
  BAD_CREDENTIALS_MESSAGE,
  type Caller,
  DAY_MS,
  ENDPOINT_LIST,
  envelopeSchema,
  parseHtml,
  parseText,
  parseTimestampMs,
  signQuery,
  utcDay,
} from '@tagtrack/core';
import { withRevision3Cases } from '@tagtrack/dataset';
import { canonicalDataset as ds } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
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
/** The newest tag sent on a day before `sendDay`, and its day. */
const olderTag = index.tags(admin, {})!.find((t) => t.dateSent.slice(0, 10) !== sendDay)!;
const olderDay = olderTag.dateSent.slice(0, 10);
/** The day before `sendDay`: no event of the newest tag falls on it. */
const dayBeforeSend = utcDay(parseTimestampMs(`${sendDay}T00:00:00Z`) - DAY_MS);
/** A tag sent after 22:00 UTC, and the next UTC day: its day at UTC+2. */
const lateTag = index.tags(admin, {})!.find((t) => t.dateSent.slice(11, 13) >= '22')!;
const lateTagLocalDay = utcDay(parseTimestampMs(lateTag.dateSent) + 2 * 60 * 60 * 1000);
/** `newestTag.dateSent` two hours later, still marked UTC. */
const sendShifted = `${new Date(parseTimestampMs(newestTag.dateSent) + 2 * 60 * 60 * 1000).toISOString().slice(0, 19)}Z`;
const otherTeamMember = ds.teams[1]!.members[0]!.memberID;
const group = ds.teams[0]!.groups[0]!;
const upperHex = btoa(`${adminCred.authId}:${signQuery('', adminCred.accessKey).toUpperCase()}`);
const PUBLIC = 'http://public.example';
/** The team 1 admin's header without its base64 padding (its authId makes one necessary). */
const unpadded = btoa(`${adminCred.authId}:${signQuery('', adminCred.accessKey)}`).replace(
  /=+$/,
  '',
);

/** Team 1's manager (with a group) as a caller. */
const managerCred = credential(1, 'manager');
const manager: Caller = {
  memberID: managerCred.memberID,
  teamID: managerCred.teamID,
  accountType: 'manager',
};
/** The group of team 1's manager. */
function managerGroupID(): string {
  return index.members(manager).find((m) => m.memberID === manager.memberID)!.groupID!;
}
/** A contact team 1's manager sees over fewer tags than the admin: its record differs. */
const narrowContact = index
  .contacts(manager)
  .find((c) => index.contact(admin, c.contactID)!.stats.totalSent !== c.stats.totalSent)!;
/** A group name team 1 shares with team 2, where team 2 has the lower groupID. */
const sharedName = ds.teams[0]!.groups.find((g) =>
  ds.teams[1]!.groups.some((o) => o.groupName === g.groupName && o.groupID < g.groupID),
)!.groupName;

/** The canonical dataset with core's Revision 3 cases (equal dateSent, a recipient listed twice with events). */
const REVISION_3_DATASET = withRevision3Cases(ds);

/** One response as the probes see it. */
interface Observed {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

interface Probe {
  /** Options of both servers besides the fault. */
  options?: ServerOptions;
  /** Requests, sent in order to each server; every response is compared. */
  requests: [path: string, query: string, options?: GetOptions][];
  /** What the fault must change: assertions on the faulty server's responses. */
  faulty?: (observed: Observed[]) => void;
}

/** The parts of a JSON body the probes read. */
interface Body {
  data: ({ date?: string; contactID: string; tagID: string } & Record<string, unknown>)[];
  paging: { nextURL: string | null; previousURL: string | null };
  message: string;
}
const json = (o: Observed) => JSON.parse(o.body) as Body;

const PROBES: Record<FaultName, Probe> = {
  'unique-opens-as-total': { requests: [['/teams/tags', '']] },
  'end-day-exclusive': { requests: [['/teams/tags', `start=${sendDay}&end=${sendDay}`]] },
  'ignore-is-opened': { requests: [['/teams/tags', 'isOpened=true']] },
  'aggregate-drops-record': { requests: [['/stats', 'aggregateData=true']] },
  'page-overlap': { options: { pageSize: 10 }, requests: [['/teams/tags', '']] },
  'next-url-page-aligned': {
    options: { pageSize: 10 },
    requests: [['/teams/tags', 'cursor=3']],
    faulty: ([o]) => expect(json(o!).paging.nextURL).toBe(`${PUBLIC}/teams/tags?cursor=10`),
  },
  'previous-url-unclamped': {
    options: { pageSize: 10 },
    requests: [['/teams/tags', 'cursor=3']],
    faulty: ([o]) => expect(json(o!).paging.previousURL).toBe(`${PUBLIC}/teams/tags?cursor=-7`),
  },
  'prev-cursor-float': {
    options: { pagingEnd: 'empty-page' },
    requests: [['/teams/tags', 'cursor=99999999999999999999']],
    faulty: ([o]) => {
      expect(o!.body).toContain('"previous":100000000000000000000');
      expect(json(o!).paging.previousURL).toBe(`${PUBLIC}/teams/tags?cursor=100000000000000000000`);
    },
  },
  'link-next-page-count': {
    options: { pageSize: 40 },
    requests: [['/teams/tags', 'cursor=80']],
    faulty: ([o]) => {
      expect(json(o!).paging.nextURL).not.toBeNull();
      expect(o!.headers.link).not.toContain('rel="next"');
    },
  },
  'total-count-counts-header-row': {
    requests: [
      ['/teams', 'rtn=text'],
      ['/teams', ''],
    ],
    faulty: ([text, js]) =>
      expect(Number(text!.headers['x-total-count'])).toBe(Number(js!.headers['x-total-count']) + 1),
  },
  'paging-url-drops-prefix': {
    options: { publicUrl: `${PUBLIC}/api/v1`, pageSize: 10 },
    requests: [['/teams/tags', '']],
    faulty: ([o]) => expect(json(o!).paging.nextURL).toBe(`${PUBLIC}/teams/tags?cursor=10`),
  },
  'total-param-as-page-size': {
    requests: [['/teams/tags', 'total=2']],
    faulty: ([o]) => expect(json(o!).data).toHaveLength(2),
  },
  'next-param-as-cursor': {
    requests: [['/teams/tags', 'next=5']],
    faulty: ([o]) => expect(json(o!).paging.previousURL).not.toBeNull(),
  },
  'head-link-relative': {
    options: { pageSize: 10 },
    requests: [['/teams/tags', '', { method: 'HEAD' }]],
    faulty: ([o]) => expect(o!.headers.link).toBe('</teams/tags?cursor=10>; rel="next"'),
  },
  'single-cursor-no-content': {
    requests: [[`/teams/member/${admin.memberID}`, 'cursor=1']],
    faulty: ([o]) => {
      expect(o!.status).toBe(204);
      expect(o!.headers['x-total-count']).toBe('1');
    },
  },
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
  'scoped-group-name-as-id': { requests: [['/teams', '', { as: managerCred }]] },
  'manager-group-self-only': {
    requests: [[`/teams/group/${managerGroupID()}`, '', { as: managerCred }]],
  },
  'contact-single-team-counters': {
    requests: [[`/contacts/${narrowContact.contactID}`, '', { as: managerCred }]],
  },
  'group-name-any-team': {
    requests: [[`/teams/group/${encodeURIComponent(sharedName)}`, '']],
  },
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
  'rate-limit-reset-milliseconds': {
    options: { rateLimit: { limit: 1, windowMs: 60_000 } },
    requests: [
      ['/teams', ''],
      ['/teams', ''],
    ],
  },
  'next-param-rejected': {
    requests: [['/teams', 'next=5']],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'no-content-as-empty-page': {
    requests: [['/contacts', 'cursor=100000']],
    faulty: ([o]) => {
      expect(o!.status).toBe(200);
      expect(json(o!).data).toEqual([]);
    },
  },
  'no-content-without-headers': {
    requests: [['/contacts', 'cursor=100000']],
    faulty: ([o]) => {
      expect(o!.status).toBe(204);
      expect(o!.headers['x-total-count']).toBeNull();
      expect(o!.headers.link).toBeNull();
    },
  },
  'last-page-next-null': {
    options: { pageSize: 10 },
    requests: [['/teams', '']],
    faulty: ([o]) => expect(json(o!).paging.nextURL).toBeNull(),
  },
  'paging-url-drops-params': {
    requests: [['/teams/tags', 'isOpened=true&rtn=json']],
    faulty: ([o]) => expect(json(o!).paging.nextURL).toMatch(/\/teams\/tags\?cursor=\d+$/),
  },
  'paging-url-sorted-params': {
    requests: [['/teams/tags', 'rtn=json&isOpened=true&cursor=0']],
    faulty: ([o]) =>
      expect(json(o!).paging.nextURL).toMatch(/\?cursor=\d+&isOpened=true&rtn=json$/),
  },
  'link-header-missing-text': {
    requests: [
      ['/teams', 'rtn=text'],
      ['/teams', 'rtn=json'],
    ],
    faulty: ([text, js]) => {
      expect(text!.headers.link).toBeNull();
      expect(js!.headers.link).not.toBeNull();
    },
  },
  'total-count-on-single': {
    requests: [[`/teams/member/${admin.memberID}`, '']],
    faulty: ([o]) => expect(o!.headers['x-total-count']).toBe('1'),
  },
  'head-no-link': {
    requests: [
      ['/teams', '', { method: 'HEAD' }],
      ['/teams', ''],
    ],
    faulty: ([head, getRes]) => {
      expect(head!.headers.link).toBeNull();
      expect(getRes!.headers.link).not.toBeNull();
    },
  },
  'cursor-unchecked-single': {
    requests: [[`/teams/member/${admin.memberID}`, 'cursor=abc']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'previous-url-on-first-page': {
    requests: [['/teams', '']],
    faulty: ([o]) => {
      expect(json(o!).paging.previousURL).toBe(`${PUBLIC}/teams?cursor=0`);
      expect(o!.headers.link).toContain('rel="prev"');
    },
  },
  'unknown-auth-id-message': {
    requests: [
      ['/teams', '', { as: { authId: 'no-such-id', accessKey: 'x' } }],
      ['/teams', '', { as: { ...adminCred, accessKey: 'x' } }],
    ],
    faulty: ([unknown, wrong]) => {
      expect(unknown!.status).toBe(401);
      expect(unknown!.body).not.toBe(wrong!.body);
      expect(json(wrong!).message).toBe(BAD_CREDENTIALS_MESSAGE);
    },
  },
  'plus-not-space': {
    requests: [['/teams/tags', 'total=a+b', { signed: 'total=a b' }]],
    faulty: ([o]) => expect(o!.status).toBe(401),
  },
  'hex-case-sensitive': {
    requests: [['/teams', '', { as: null, headers: { Authorization: upperHex } }]],
    faulty: ([o]) => expect(o!.status).toBe(401),
  },
  'next-not-signed': {
    requests: [['/teams', 'next=1', { signed: '' }]],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'group-name-case-insensitive': {
    requests: [[`/teams/group/${encodeURIComponent(group.groupName.toUpperCase())}`, '']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'group-name-prefix': {
    requests: [[`/teams/stats/group/${encodeURIComponent(group.groupName.slice(0, 3))}`, '']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'empty-value-as-absent': {
    requests: [['/teams', 'type=']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'foreign-param-accepted': {
    requests: [['/contacts', 'start=2024-01-01']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'path-not-decoded': {
    requests: [
      ['/%74eams', ''],
      [`/teams/group/${encodeURIComponent(group.groupName)}`, ''],
    ],
    faulty: ([encoded, placeholder]) => {
      expect(encoded!.status).toBe(404);
      expect(placeholder!.status).toBe(200);
    },
  },
  'aggregate-record-has-date': {
    requests: [['/stats', 'aggregateData=true']],
    faulty: ([o]) => expect(json(o!).data[0]?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/),
  },
  'latitude-out-of-range': {
    requests: [['/opens', '']],
    faulty: ([o]) => {
      const schema = envelopeSchema(ENDPOINT_LIST.find((e) => e.id === 'opens.list')!);
      expect(schema.safeParse(json(o!)).success).toBe(false);
    },
  },
  'contact-id-inconsistent': {
    requests: [
      ['/opens', ''],
      ['/contacts', ''],
    ],
    faulty: ([opens, contacts]) => {
      const ids = new Set(json(contacts!).data.map((c) => c.contactID));
      const groups = json(opens!).data as unknown as {
        opens: { recipient: { recipientID: string } }[];
      }[];
      const recipients = groups.flatMap((g) => g.opens.map((o) => o.recipient.recipientID));
      expect(recipients.length).toBeGreaterThan(0);
      expect(recipients.some((id: string) => ids.has(id))).toBe(false);
    },
  },
  'out-of-scope-message': {
    requests: [
      [`/teams/member/${otherTeamMember}`, ''],
      ['/teams/member/zz0000unknown', ''],
    ],
    faulty: ([hidden, unknown]) => {
      expect(hidden!.status).toBe(404);
      expect(json(hidden!).message.replace(otherTeamMember, '{id}')).not.toBe(
        json(unknown!).message.replace('zz0000unknown', '{id}'),
      );
    },
  },
  'repeated-param-last-wins': {
    requests: [['/teams', 'type=user&type=admin']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'auth-unpadded-accepted': {
    requests: [['/teams', '', { as: null, headers: { Authorization: unpadded } }]],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'params-before-auth': {
    requests: [['/teams/tags', 'isOpened=maybe', { as: null }]],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'cursor-leading-zeros-rejected': {
    requests: [['/teams', 'cursor=000']],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'huge-cursor-rejected': {
    requests: [['/teams', `cursor=${'9'.repeat(20)}`]],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'trailing-slash-accepted': {
    requests: [['/teams/', '']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'empty-segments-collapsed': {
    requests: [['/teams//tags', '']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'cursor-not-signed': {
    requests: [['/teams', 'cursor=1', { signed: '' }]],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'daily-date-rolls-over': {
    requests: [[`/tags/daily/${newestTag.tagID}`, 'date=2024-02-30']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'events-start-after-end-empty': {
    requests: [['/clicks', 'start=2024-03-02&end=2024-03-01']],
    faulty: ([o]) => expect(o!.status).toBe(204),
  },
  'member-tags-lenient-boolean': {
    requests: [[`/teams/member/${admin.memberID}/tags`, 'isOpened=yes']],
    faulty: ([o]) => expect(o!.status).not.toBe(400),
  },
  'stats-type-any-case': {
    requests: [['/stats', 'type=Admin']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'group-type-ignored': {
    requests: [[`/teams/group/${group.groupID}`, 'type=manager']],
    faulty: ([o]) => expect(json(o!).data.some((m) => m.accountType !== 'manager')).toBe(true),
  },
  'false-filter-negates': {
    requests: [['/teams/tags', 'isOpened=False']],
    faulty: ([o]) =>
      expect(json(o!).data.every((t) => (t.stats as { totalOpens: number }).totalOpens === 0)).toBe(
        true,
      ),
  },
  'aggregate-false-aggregates': {
    requests: [['/stats', 'aggregateData=0']],
    faulty: ([o]) => expect(json(o!).data).toHaveLength(1),
  },
  'stats-type-ignored': { requests: [['/stats', 'type=user&aggregateData=true']] },
  'group-stats-type-ignored': {
    requests: [[`/teams/stats/group/${group.groupID}`, 'type=user&aggregateData=true']],
  },
  'stats-type-per-day-ignored': { requests: [['/teams/stats', 'type=user']] },
  'empty-piece-400': {
    requests: [['/teams', 'type=user&&rtn=json&']],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'bare-name-ignored': {
    requests: [['/teams', 'type']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'empty-name-ignored': {
    requests: [['/teams', '=json']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'names-case-insensitive': {
    requests: [['/teams', 'RTN=json']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'names-not-decoded': {
    requests: [['/teams', '%72tn=json']],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'values-not-decoded': {
    requests: [['/teams', 'rtn=%6Ason']],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'malformed-escape-as-absent': {
    requests: [['/teams', 'type=%zz']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'non-utf8-bytes-dropped': {
    requests: [['/teams', 'rtn=json%FF']],
    faulty: ([o]) => expect(o!.status).toBe(200),
  },
  'undecodable-ignored-param-400': {
    requests: [['/teams', 'total=%zz']],
    faulty: ([o]) => expect(o!.status).toBe(400),
  },
  'path-param-not-decoded': {
    requests: [
      [`/teams/member/%${admin.memberID.charCodeAt(0).toString(16)}${admin.memberID.slice(1)}`, ''],
    ],
    faulty: ([o]) => expect(o!.status).toBe(404),
  },
  'cache-key-url-only': {
    requests: [
      ['/teams', 'total=cache-probe'],
      ['/teams', 'total=cache-probe', { as: credential(1, 'user') }],
    ],
    faulty: ([, user]) => expect(json(user!).data.length).toBeGreaterThan(1),
  },
  'paging-url-from-host': {
    requests: [['/teams', '', { headers: { Host: 'forged.invalid' } }]],
    faulty: ([o]) => expect(json(o!).paging.nextURL).toMatch(/^http:\/\/forged\.invalid\/teams\?/),
  },
  'start-day-exclusive': {
    requests: [['/teams/tags', `start=${olderDay}`]],
    faulty: ([o]) => {
      const ids = json(o!).data.map((t) => t.tagID);
      expect(ids).toContain(newestTag.tagID);
      expect(ids).not.toContain(olderTag.tagID);
    },
  },
  'days-cut-utc-plus-2': {
    requests: [['/teams/tags', `start=${lateTagLocalDay}&end=${lateTagLocalDay}`]],
    faulty: ([o]) => expect(json(o!).data.map((t) => t.tagID)).toContain(lateTag.tagID),
  },
  'tags-filtered-oldest-first': {
    requests: [['/teams/tags', 'isOpened=true']],
    faulty: ([o]) => {
      const sent = json(o!).data.map((t) => t.dateSent as string);
      expect(sent[0]! < sent.at(-1)!).toBe(true);
    },
  },
  'windowed-events-newest-first': {
    requests: [['/opens', `start=${repeated.day}&end=${repeated.day}`]],
    faulty: ([o]) => {
      const groups = json(o!).data as unknown as {
        tagID: string;
        opens: { details: { openDate: string } }[];
      }[];
      const dates = groups
        .find((g) => g.tagID === repeated.tagID)!
        .opens.map((e) => e.details.openDate);
      expect(dates[0]! > dates.at(-1)!).toBe(true);
    },
  },
  'daily-no-events-404': {
    requests: [[`/tags/daily/${newestTag.tagID}`, `date=${dayBeforeSend}`]],
    faulty: ([o]) => expect(o!.status).toBe(404),
  },
  'tables-ignore-window': {
    requests: [
      ['/teams/tags', `start=${sendDay}&end=${sendDay}&rtn=text`],
      ['/teams/tags', `start=${sendDay}&end=${sendDay}&rtn=json`],
    ],
    faulty: ([text, js]) => {
      expect(text!.body).toContain(olderTag.tagID);
      expect(Number(text!.headers['x-total-count'])).toBeGreaterThan(
        Number(js!.headers['x-total-count']),
      );
    },
  },
  'aggregate-absent-true': {
    requests: [['/stats', '']],
    faulty: ([o]) => {
      expect(json(o!).data).toHaveLength(1);
      expect(json(o!).data[0]!.date).toBeUndefined();
    },
  },
  'member-tags-digit-false': {
    requests: [
      [`/teams/member/${admin.memberID}/tags`, 'isClicked=1'],
      [`/teams/member/${admin.memberID}/tags`, ''],
    ],
    faulty: ([digit, all]) =>
      expect(digit!.headers['x-total-count']).toBe(all!.headers['x-total-count']),
  },
  'tables-dates-shifted': {
    requests: [['/teams/tags', 'rtn=text']],
    faulty: ([o]) => {
      expect(o!.body).toContain(`${newestTag.tagID}\t${newestTag.subject}\t${sendShifted}\t`);
      expect(o!.body).not.toContain(newestTag.dateSent);
    },
  },
  'text-last-row-dropped': {
    requests: [
      ['/teams', 'rtn=text'],
      ['/teams', 'rtn=json'],
    ],
    faulty: ([text, js]) =>
      expect(parseText(text!.body).rows).toHaveLength(json(js!).data.length - 1),
  },
  'text-raw-cr': {
    requests: [['/teams/tags', 'rtn=text']],
    faulty: ([text]) => {
      expect(text!.body).toContain('Quarterly figures\rrevised');
      expect(() => parseText(text!.body)).toThrow(/raw carriage return/);
    },
  },
  'html-raw-cr': {
    requests: [['/teams/tags', 'rtn=html']],
    faulty: ([html]) => {
      expect(html!.body).toContain('Quarterly figures\rrevised');
      expect(() => parseHtml(html!.body)).toThrow(/raw carriage return/);
    },
  },
  'text-rows-per-record': {
    options: { pageSize: 5 },
    requests: [
      ['/opens', 'rtn=text'],
      ['/opens', ''],
    ],
    faulty: ([text, js]) => {
      const groups = json(js!).data as unknown as { opens: unknown[] }[];
      expect(groups).toHaveLength(5);
      expect(parseText(text!.body).rows).toHaveLength(5);
    },
  },
  'event-groups-count-events': {
    requests: [['/clicks', '']],
    faulty: ([o]) => {
      const groups = json(o!).data as unknown as { clicks: unknown[] }[];
      const events = groups.reduce((n, g) => n + g.clicks.length, 0);
      expect(Number(o!.headers['x-total-count'])).toBe(events);
      expect(events).toBeGreaterThan(groups.length);
    },
  },
  'event-recipient-name-last': {
    options: { dataset: REVISION_3_DATASET },
    requests: [['/opens', '']],
    faulty: ([o]) => {
      const names = (json(o!).data as unknown as { opens: { recipient: { name: string } }[] }[])
        .flatMap((g) => g.opens)
        .map((e) => e.recipient.name);
      expect(names.some((n) => n.endsWith(' (listed again)'))).toBe(true);
    },
  },
  'event-recipient-name-first-entry': {
    requests: [['/clicks', '']],
  },
  'paging-path-lowercased': {
    options: { pageSize: 1 },
    requests: [['/teams/group/Key%20Accounts', '']],
    faulty: ([o]) =>
      expect(json(o!).paging.nextURL).toBe(`${PUBLIC}/teams/group/key%20accounts?cursor=1`),
  },
  'contact-unique-opens-as-total': {
    requests: [['/contacts', '']],
    faulty: ([o]) => {
      const stats = json(o!).data.map((c) => c.stats as unknown as Record<string, number>);
      expect(stats.every((x) => x.uniqueOpens === x.totalOpens)).toBe(true);
      expect(stats.some((x) => x.totalOpens! > 1)).toBe(true);
    },
  },
  'members-by-firstname': {
    requests: [['/teams', '']],
    faulty: ([o]) => {
      const names = json(o!).data.map((m) => m.firstname as string);
      expect(names).toEqual([...names].sort());
    },
  },
  'contacts-by-name': {
    requests: [['/contacts', '']],
    faulty: ([o]) => {
      const names = json(o!).data.map((c) => c.name as string);
      expect(names).toEqual([...names].sort());
    },
  },
  'event-groups-by-tag-id': {
    requests: [['/opens', '']],
    faulty: ([o]) => {
      const ids = json(o!).data.map((g) => g.tagID as string);
      expect(ids).toEqual([...ids].sort());
    },
  },
  'stats-days-newest-first': {
    requests: [['/stats', '']],
    faulty: ([o]) => {
      const days = json(o!).data.map((r) => r.date as string);
      expect(days.length).toBeGreaterThan(1);
      expect(days).toEqual([...days].sort().reverse());
    },
  },
  'order-hidden-subsecond': {
    options: { dataset: REVISION_3_DATASET },
    requests: [['/teams/tags', '']],
    faulty: ([o]) => {
      const tags = json(o!).data as unknown as { tagID: string; dateSent: string }[];
      const tie = tags.findIndex((t, i) => i > 0 && t.dateSent === tags[i - 1]!.dateSent);
      expect(tie).toBeGreaterThan(0);
      expect(tags[tie]!.tagID < tags[tie - 1]!.tagID).toBe(true);
    },
  },
};

async function observe(server: TagtrackServer, probe: Probe): Promise<Observed[]> {
  const out: Observed[] = [];
  for (const [path, query, options] of probe.requests) {
    const res = await get(server, path, query, options);
    const headers = Object.fromEntries(
      ['content-type', 'x-total-count', 'link', 'retry-after', 'x-rate-limit-reset'].map((h) => [
        h,
        res.headers.get(h),
      ]),
    );
    out.push({ status: res.status, headers, body: await res.text() });
  }
  return out;
}

describe('fault injection', () => {
  test('FAULTS describes every fault name once, with an area, a description and the requirement ids that catch it', () => {
    expect(FAULTS.map((f) => f.name)).toEqual([...FAULT_NAMES]);
    expect(new Set(FAULT_NAMES).size).toBe(FAULT_NAMES.length);
    // the fault matrix of the conformance suite asks for at least 60
    expect(FAULT_NAMES.length).toBeGreaterThanOrEqual(60);
    for (const f of FAULTS) {
      expect(['store', 'params', 'routing', 'paging', 'render', 'auth', 'rate-limit']).toContain(
        f.area,
      );
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.detectedBy.length).toBeGreaterThan(0);
      for (const id of f.detectedBy) expect(id).toMatch(/^[A-Z]+(-[A-Z0-9]+)+$/);
    }
  });

  test('out-of-scope-403 answers a spec §6 error body with the reason phrase Forbidden', async () => {
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
      const options = { publicUrl: PUBLIC, ...probe.options, clock };
      const clean = createServer(options);
      const faulty = createServer({ ...options, faults: [fault] });
      const expected = await observe(clean, probe);
      const actual = await observe(faulty, probe);
      expect(actual).not.toEqual(expected);
      probe.faulty?.(actual);
      // the difference comes from the fault: a second clean server answers the same
      expect(await observe(createServer(options), probe)).toEqual(expected);
    },
  );
});
