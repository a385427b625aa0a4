import * as fc from 'fast-check';
import { contactIdOf } from './aggregate/contact-id.ts';
import { dayString, daysFromCivil } from './aggregate/time.ts';
import type { Caller, DayWindow, EndpointRequest, TagFilters } from './aggregate/types.ts';
import type {
  Dataset,
  DatasetEvent,
  DatasetMember,
  DatasetTag,
  DatasetTeam,
} from './dataset/schema.ts';
import { ENDPOINT_IDS, endpointById, type PathParamName } from './endpoints.ts';
import type { Device } from './events.ts';
import type { AccountType } from './member.ts';
import { defaultQueryParams, type QueryParams } from './params.ts';
import { emptyStats, type StatsSummary } from './stats.ts';
import { type CalendarDate, DAY_MS, formatTimestamp, type Timestamp } from './values.ts';

/**
 * fast-check arbitraries for the domain of spec §4–§10, exported as
 * `@tagtrack/core/testing` and reused by the conformance suite. Every date lies in the
 * years 2000–2100. Datasets are small and referentially consistent (`validateDataset`
 * finds no problem) and exercise the rules' edge cases: several teams, members of every
 * account type with and without a group, a group named like another group's id, repeat
 * opens, clicks without opens, tablets and unknown devices, events at midnight, emails
 * differing only in case and surrounding spaces, and hostile strings.
 */

/** First and last day number (days since 1970-01-01) that generated dates use. */
const FIRST_DAY = daysFromCivil(2000, 1, 1);
const LAST_DAY = daysFromCivil(2100, 12, 24);

/** Strings that break naive renderers: markup, quotes, tabs, newlines, backslashes, unicode. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '<script>alert(1)</script>',
  '&amp; & < > " \'',
  "O'Brien",
  'tab\there',
  'line\nbreak',
  'back\\slash\\t',
  'Zoë Ünïcødé',
  '日本語',
  '😀 emoji',
  '=1+1',
  'a; b <c@d>',
  '  padded  ',
];

/** Whether `s` has a control character other than tab and newline. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10) || c === 127) return true;
  }
  return false;
}

/** A short string: often one of {@link HOSTILE_STRINGS}, else printable graphemes. */
export const arbHostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: 'grapheme', maxLength: 10 }).filter((s) => !hasControl(s)),
);

/** An epoch-ms timestamp string `YYYY-MM-DDTHH:MM:SSZ` within 2000–2100. */
export const arbTimestamp: fc.Arbitrary<Timestamp> = fc
  .integer({ min: FIRST_DAY * 86_400, max: (LAST_DAY + 1) * 86_400 - 1 })
  .map((s) => formatTimestamp(s * 1000));

/** A calendar day `YYYY-MM-DD` within 2000–2100. */
export const arbCalendarDate: fc.Arbitrary<CalendarDate> = fc
  .integer({ min: FIRST_DAY, max: LAST_DAY })
  .map(dayString);

const counter = fc.nat({ max: 1_000_000 });

/**
 * A stats summary without `date` (an aggregated record, spec §5): unique counters
 * never exceed total counters; `dateLastSent` is `null` exactly when `totalSent` is 0.
 */
export const arbStatsSummary: fc.Arbitrary<StatsSummary> = fc
  .record({
    totalSent: fc.nat({ max: 10_000 }),
    totalOpens: counter,
    totalClicks: counter,
    uniqueOpensShare: fc.double({ min: 0, max: 1, noNaN: true }),
    uniqueClicksShare: fc.double({ min: 0, max: 1, noNaN: true }),
    dateLastSent: arbTimestamp,
  })
  .map((r) =>
    r.totalSent === 0
      ? emptyStats()
      : {
          totalSent: r.totalSent,
          totalOpens: r.totalOpens,
          totalClicks: r.totalClicks,
          uniqueOpens: Math.floor(r.totalOpens * r.uniqueOpensShare),
          uniqueClicks: Math.floor(r.totalClicks * r.uniqueClicksShare),
          dateLastSent: r.dateLastSent,
        },
  );

/** A per-day stats record (spec §5): at least one tag, `date` = the day of `dateLastSent`. */
export const arbDailyStatsSummary: fc.Arbitrary<StatsSummary> = arbStatsSummary
  .filter((s) => s.dateLastSent !== null)
  .map((s) => ({ ...s, date: s.dateLastSent!.slice(0, 10) }));

/** The four tag filters of spec §6, each absent, false or true. */
export const arbTagFilters: fc.Arbitrary<TagFilters> = fc.record(
  {
    isOpened: fc.boolean(),
    isUnopened: fc.boolean(),
    isClicked: fc.boolean(),
    isUnclicked: fc.boolean(),
  },
  { requiredKeys: [] },
);

function windowFrom(days: readonly number[]): fc.Arbitrary<DayWindow> {
  const day =
    days.length > 0 ? fc.constantFrom(...days) : fc.integer({ min: FIRST_DAY, max: LAST_DAY });
  return fc
    .record({ a: fc.option(day, { nil: undefined }), b: fc.option(day, { nil: undefined }) })
    .map(({ a, b }) => {
      const [lo, hi] = a !== undefined && b !== undefined && a > b ? [b, a] : [a, b];
      const window: { start?: CalendarDate; end?: CalendarDate } = {};
      if (lo !== undefined) window.start = dayString(lo);
      if (hi !== undefined) window.end = dayString(hi);
      return window;
    });
}

/** A window of whole UTC days within 2000–2100, `start <= end`, either bound possibly absent. */
export const arbDayWindow: fc.Arbitrary<DayWindow> = windowFrom([]);

/**
 * A day window whose bounds are days of `dataset` (tag and event days, and their
 * neighbours), so windows cut through the data rather than miss it.
 */
export function arbDayWindowFor(dataset: Dataset): fc.Arbitrary<DayWindow> {
  const days = new Set<number>();
  const add = (ts: string) => {
    const d = Math.floor(Date.parse(ts) / DAY_MS);
    days.add(d - 1);
    days.add(d);
    days.add(d + 1);
  };
  for (const t of dataset.tags) add(t.dateSent);
  for (const e of dataset.opens) add(e.date);
  for (const e of dataset.clicks) add(e.date);
  return windowFrom([...days].sort((a, b) => a - b));
}

/** A day `YYYY-MM-DD` of `dataset` (or a neighbour), for endpoint 14. */
export function arbDayFor(dataset: Dataset): fc.Arbitrary<CalendarDate> {
  return arbDayWindowFor(dataset)
    .filter((w) => w.start !== undefined)
    .map((w) => w.start!);
}

const ACCOUNT_TYPES: readonly AccountType[] = ['admin', 'manager', 'user'];
const DEVICES: readonly Device[] = ['desktop', 'mobile', 'tablet', 'unknown'];
const EMAIL_POOL: readonly string[] = [
  'ann@example.com',
  'bob@example.com',
  "o'brien@example.com",
  'zoë@exämple.com',
  '<carol>@example.com',
  'dave+tag@example.com',
  'eve&co@example.com',
  'fred@sub.example.com',
];

/** How an email is written: as is, upper-cased, with surrounding spaces, or mixed. */
function spell(email: string, variant: number): string {
  switch (variant % 5) {
    case 1:
      return email.toUpperCase();
    case 2:
      return `  ${email} `;
    case 3:
      return email.charAt(0).toUpperCase() + email.slice(1);
    default:
      return email;
  }
}

const arbId = fc.stringMatching(/^[A-Za-z0-9_-]{0,4}$/);

const arbMemberSpec = fc.record({
  id: arbId,
  firstname: arbHostileString,
  lastname: fc.oneof(fc.constantFrom('Smith', 'smith', 'Ng'), arbHostileString),
  email: fc.constantFrom('m@team.test', 'Boss@Team.test', '<m>@team.test'),
  accountType: fc.constantFrom(...ACCOUNT_TYPES),
  group: fc.option(fc.nat(), { nil: undefined }),
});

const arbTeamSpec = fc.record({
  name: arbHostileString,
  groups: fc.array(
    fc.record({ id: arbId, name: arbHostileString, nameLikeOtherId: fc.boolean() }),
    { maxLength: 3 },
  ),
  members: fc.array(arbMemberSpec, { minLength: 1, maxLength: 6 }),
});

const arbSecondOfDay = fc.oneof(
  fc.constantFrom(0, 1, 43_200, 86_399),
  fc.integer({ min: 0, max: 86_399 }),
);

const arbTagSpec = fc.record({
  id: arbId,
  sender: fc.nat(),
  subject: arbHostileString,
  day: fc.nat({ max: 4 }),
  second: arbSecondOfDay,
  recipients: fc.array(fc.record({ email: fc.nat(), spelling: fc.nat(), name: arbHostileString }), {
    minLength: 1,
    maxLength: 4,
  }),
});

const arbEventSpec = fc.record({
  tag: fc.nat(),
  recipient: fc.nat(),
  spelling: fc.nat(),
  /** 'same': at the send instant; 'midnight' / 'before-midnight': at / 1 s before a day boundary. */
  when: fc.constantFrom('same', 'midnight', 'before-midnight', 'later', 'later'),
  days: fc.nat({ max: 2 }),
  seconds: fc.integer({ min: 0, max: 86_399 }),
  device: fc.constantFrom(...DEVICES),
  place: arbHostileString,
});

type EventSpec = typeof arbEventSpec extends fc.Arbitrary<infer T> ? T : never;

/**
 * A small consistent dataset (spec §10 event log): 1–2 teams with 0–3 groups and 1–6
 * members each (every account type, with and without group), 0–10 tags with 1–4
 * recipients (repeated and differently spelled emails included), 0–24 opens and 0–16 clicks
 * of recipients, all timestamps within 2000–2100 and events never before their tag's send.
 */
export const arbDataset: fc.Arbitrary<Dataset> = fc
  .record({
    firstDay: fc.integer({ min: FIRST_DAY, max: LAST_DAY - 8 }),
    teams: fc.array(arbTeamSpec, { minLength: 1, maxLength: 2 }),
    tags: fc.array(arbTagSpec, { maxLength: 10 }),
    opens: fc.array(arbEventSpec, { maxLength: 24 }),
    clicks: fc.array(arbEventSpec, { maxLength: 16 }),
  })
  .map((spec): Dataset => {
    const teams: DatasetTeam[] = spec.teams.map((t, ti) => {
      const groups = t.groups.map((g, gi) => ({
        groupID: `${g.id}g${ti}x${gi}`,
        groupName: g.name || `group ${gi}`,
      }));
      t.groups.forEach((g, gi) => {
        const other = groups[(gi + 1) % groups.length]!;
        if (g.nameLikeOtherId && groups.length > 1) groups[gi]!.groupName = other.groupID;
      });
      const members: DatasetMember[] = t.members.map((m, mi) => {
        const member: DatasetMember = {
          memberID: `${m.id}m${ti}x${mi}`,
          firstname: m.firstname,
          lastname: m.lastname,
          email: m.email,
          accountType: m.accountType,
        };
        if (m.group !== undefined && groups.length > 0) {
          member.groupID = groups[m.group % groups.length]!.groupID;
        }
        return member;
      });
      return { teamID: `team${ti}`, name: t.name, groups, members };
    });
    const allMembers = teams.flatMap((t) => t.members);
    const tags: DatasetTag[] = spec.tags.map((t, i) => ({
      tagID: `${t.id}t${i}`,
      memberID: allMembers[t.sender % allMembers.length]!.memberID,
      subject: t.subject,
      dateSent: formatTimestamp(((spec.firstDay + t.day) * 86_400 + t.second) * 1000),
      recipients: t.recipients.map((r) => ({
        name: r.name,
        email: spell(EMAIL_POOL[r.email % EMAIL_POOL.length]!, r.spelling),
      })),
    }));
    const events = (specs: readonly EventSpec[]): DatasetEvent[] => {
      if (tags.length === 0) return [];
      return specs.map((e) => {
        const tag = tags[e.tag % tags.length]!;
        const sent = Date.parse(tag.dateSent) / 1000;
        const nextMidnight = (Math.floor(sent / 86_400) + 1 + e.days) * 86_400;
        const at =
          e.when === 'same'
            ? sent
            : e.when === 'midnight'
              ? nextMidnight
              : e.when === 'before-midnight'
                ? Math.max(sent, nextMidnight - 1)
                : sent + e.days * 86_400 + e.seconds;
        const recipient = tag.recipients[e.recipient % tag.recipients.length]!;
        return {
          tagID: tag.tagID,
          email: spell(recipient.email.trim().toLowerCase(), e.spelling),
          date: formatTimestamp(at * 1000),
          counry: e.place,
          region: 'Region',
          city: e.place,
          latitude: '51.5',
          longitude: '-0.12',
          device: e.device,
          os: 'os',
          browser: e.place,
        };
      });
    };
    return {
      teams,
      tags,
      opens: events(spec.opens),
      clicks: events(spec.clicks),
      credentials: allMembers.map((m) => ({
        authId: `auth-${m.memberID}`,
        accessKey: `key-${m.memberID}`,
        memberID: m.memberID,
      })),
    };
  });

/** The caller of a member of `dataset` (spec §4). */
export function callerOfMember(dataset: Dataset, memberID: string): Caller {
  for (const team of dataset.teams) {
    const m = team.members.find((x) => x.memberID === memberID);
    if (m) return { memberID, teamID: team.teamID, accountType: m.accountType };
  }
  throw new Error(`no member ${JSON.stringify(memberID)} in the dataset`);
}

/** A caller among the members of `dataset` (every account type occurs across runs). */
export function arbCaller(dataset: Dataset): fc.Arbitrary<Caller> {
  const ids = dataset.teams.flatMap((t) => t.members.map((m) => m.memberID));
  return fc.constantFrom(...ids).map((id) => callerOfMember(dataset, id));
}

/** A dataset and a caller among its members. */
export const arbDatasetWithCaller: fc.Arbitrary<{ dataset: Dataset; caller: Caller }> =
  arbDataset.chain((dataset) => arbCaller(dataset).map((caller) => ({ dataset, caller })));

/** Path parameter values to try on `dataset`: its ids and names, and a few that match nothing. */
function pathValuesFor(dataset: Dataset): Record<PathParamName, readonly string[]> {
  const groups = dataset.teams.flatMap((t) => t.groups);
  const emails = dataset.tags.flatMap((t) => t.recipients.map((r) => r.email));
  return {
    memberID: [...dataset.teams.flatMap((t) => t.members.map((m) => m.memberID)), 'nobody'],
    group: [
      ...groups.flatMap((g) => [g.groupID, g.groupName, g.groupName.toUpperCase()]),
      'no such group',
    ],
    tagID: [...dataset.tags.map((t) => t.tagID), 'no-such-tag'],
    contactID: [...emails.map(contactIdOf), ...emails.slice(0, 1), 'no-such-contact'],
  };
}

/**
 * A request to any endpoint of the catalogue over `dataset` (spec §4–§6), in domain
 * terms as `ReportingIndex.answer` and `plainAnswer` take it: path parameters drawn from the
 * dataset's ids and group names (another team's and unknown ones included, rarely absent),
 * and a parsed query whose windows cut through the dataset's days. The query sets only the
 * parameters the endpoint takes (endpoint 14 always gets `date`), or, with `anyParams`,
 * every parameter, so callers can check that an endpoint ignores the others.
 */
export function arbEndpointRequestFor(
  dataset: Dataset,
  options: { readonly anyParams?: boolean } = {},
): fc.Arbitrary<EndpointRequest> {
  const pools = pathValuesFor(dataset);
  const query = fc.record({
    window: arbDayWindowFor(dataset),
    filters: arbTagFilters,
    aggregateData: fc.boolean(),
    type: fc.option(fc.constantFrom(...ACCOUNT_TYPES), { nil: undefined }),
    date: arbDayFor(dataset),
  });
  return fc
    .record({ endpoint: fc.constantFrom(...ENDPOINT_IDS), pick: fc.nat(), absent: fc.nat(19) })
    .chain(({ endpoint, pick, absent }) =>
      query.map((q): EndpointRequest => {
        const e = endpointById(endpoint);
        const pathParams: Partial<Record<PathParamName, string>> = {};
        for (const name of e.pathParams) {
          const pool = pools[name];
          if (absent !== 0) pathParams[name] = pool[pick % pool.length]!;
        }
        const all: { [K in keyof QueryParams]?: QueryParams[K] | undefined } = {
          ...q.window,
          ...q.filters,
          aggregateData: q.aggregateData,
          type: q.type,
          date: q.date,
        };
        const overrides: Partial<QueryParams> = {};
        for (const [name, value] of Object.entries(all) as [keyof QueryParams, never][]) {
          if (value !== undefined && (options.anyParams || e.query.includes(name)))
            overrides[name] = value;
        }
        return { endpoint, pathParams, query: defaultQueryParams(overrides) };
      }),
    );
}
