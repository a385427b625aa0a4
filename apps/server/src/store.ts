import {
  type Answer,
  type Caller,
  type Click,
  type ClickGroup,
  type Contact,
  contactIdOf,
  type DailyCounts,
  type Dataset,
  type EndpointRequest,
  type EventRecipient,
  mergeAllStats,
  type Open,
  type OpenGroup,
  type ReportingIndex,
  resolveGroup,
  type StatsSummary,
  type Tag,
  type TeamMember,
  utcDay,
  visibleGroups,
} from '@tagtrack/core';
import { LruCache } from './cache.ts';
import type { FaultSet } from './faults/index.ts';
import { RAW_QUERY_FAULTS, type RawQuery, WindowFaults } from './store-faults.ts';
import { EventRecipients } from './store-recipients.ts';
import { RecordVariants } from './store-variants.ts';
import { VariantSet } from './variants.ts';

/**
 * What the store answers: core's {@link Answer}, or (only under the fault
 * `out-of-scope-403`) `forbidden` for an id that exists outside the caller's scope.
 */
export type StoreAnswer = Answer | { readonly kind: 'forbidden'; readonly message: string };

/** Counts of events per key, split by kind. */
interface EventCounts {
  opens: number;
  clicks: number;
}

/**
 * Facts about the dataset that only the store-layer faults need (tablet events per tag,
 * events per tag and day, send dates, every id). Built once, only when such a fault is on.
 */
interface FaultFacts {
  readonly tabletsByTag: Map<string, EventCounts>;
  readonly eventsByTagDay: Map<string, EventCounts>;
  readonly daySentByTag: Map<string, string>;
  readonly teamOfMember: Map<string, string>;
  readonly ids: {
    readonly members: Set<string>;
    readonly tags: Set<string>;
    readonly groups: Set<string>;
    readonly contacts: Set<string>;
  };
}

function count(map: Map<string, EventCounts>, key: string, kind: keyof EventCounts): void {
  let c = map.get(key);
  if (!c) {
    c = { opens: 0, clicks: 0 };
    map.set(key, c);
  }
  c[kind]++;
}

function factsOf(dataset: Dataset): FaultFacts {
  const tabletsByTag = new Map<string, EventCounts>();
  const eventsByTagDay = new Map<string, EventCounts>();
  for (const [kind, events] of [
    ['opens', dataset.opens],
    ['clicks', dataset.clicks],
  ] as const) {
    for (const e of events) {
      if (e.device === 'tablet') count(tabletsByTag, e.tagID, kind);
      count(eventsByTagDay, `${e.tagID}|${e.date.slice(0, 10)}`, kind);
    }
  }
  const teamOfMember = new Map<string, string>();
  const groups = new Set<string>();
  for (const team of dataset.teams) {
    for (const m of team.members) teamOfMember.set(m.memberID, team.teamID);
    for (const g of team.groups) {
      groups.add(g.groupID);
      groups.add(g.groupName);
    }
  }
  const contacts = new Set<string>();
  for (const t of dataset.tags) for (const r of t.recipients) contacts.add(contactIdOf(r.email));
  return {
    tabletsByTag,
    eventsByTagDay,
    daySentByTag: new Map(dataset.tags.map((t) => [t.tagID, utcDay(Date.parse(t.dateSent))])),
    teamOfMember,
    ids: {
      members: new Set(teamOfMember.keys()),
      tags: new Set(dataset.tags.map((t) => t.tagID)),
      groups,
      contacts,
    },
  };
}

/**
 * The server's read side: core's {@link ReportingIndex} (built once at start-up) plus the
 * store-layer faults and variants ({@link RecordVariants}), with a bounded cache of answers
 * per (caller, request without `cursor` and `rtn`), so walking the pages of a large list does
 * not recompute it. The index is immutable, so a cached answer never goes stale.
 */
export class Store {
  readonly #cache = new LruCache<StoreAnswer>(2048);
  readonly #facts: FaultFacts | undefined;
  readonly #variants: RecordVariants;
  readonly #windows: WindowFaults;
  readonly #recipients: EventRecipients;
  readonly #rawInKey: boolean;

  constructor(
    readonly index: ReportingIndex,
    readonly faults: FaultSet,
    variants: VariantSet = new VariantSet(),
  ) {
    this.#variants = new RecordVariants(index.dataset, variants);
    this.#windows = new WindowFaults(index, faults);
    this.#recipients = new EventRecipients(index.dataset, faults, variants);
    this.#rawInKey = faults.hasAny(RAW_QUERY_FAULTS);
    const storeFaults = [
      'tablet-not-mobile',
      'daily-counts-total',
      'clicks-window-by-send-date',
      'out-of-scope-403',
      'out-of-scope-message',
      'scope-leak-team',
      'contacts-all-team-tags',
    ] as const;
    this.#facts = storeFaults.some((f) => faults.has(f)) ? factsOf(index.dataset) : undefined;
  }

  /** The access key and caller of an auth id (decisions §1), `undefined` when unknown. */
  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined {
    return this.index.credential(authId);
  }

  /**
   * Answers `request` for `caller` (decisions §2, §3, §9): the whole ordered list, the
   * single record, not found, or (fault `out-of-scope-403`) forbidden. `raw` is the query as
   * received (decoded pairs in request order): only the spelling and default faults read it.
   */
  answer(caller: Caller, request: EndpointRequest, raw: RawQuery = []): StoreAnswer {
    const { cursor: _cursor, rtn: _rtn, ...rest } = request.query;
    // under the faults that read the raw query or rtn, those are part of the answer
    const extra = this.#rawInKey
      ? `\u0000${request.query.rtn}\u0000${JSON.stringify(raw.filter(([k]) => k !== 'cursor'))}`
      : '';
    const key = `${caller.memberID}\u0000${request.endpoint}\u0000${JSON.stringify(request.pathParams)}\u0000${JSON.stringify(rest)}${extra}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const { request: variantIn, echo } = this.#variants.requestIn(request);
    const windows = this.#windows.active;
    const inCore = windows ? this.#windows.requestIn(variantIn, raw) : variantIn;
    let computed = this.#compute(caller, inCore);
    if (windows && computed.kind !== 'forbidden')
      computed = this.#windows.answerOut(caller, inCore, computed);
    if (this.#recipients.active) computed = this.#recipients.answerOut(inCore, computed);
    const answer = this.#variants.answerOut(request.endpoint, computed, echo);
    this.#cache.set(key, answer);
    return answer;
  }

  #compute(caller: Caller, request: EndpointRequest): StoreAnswer {
    const f = this.faults;
    const facts = this.#facts;
    const q = request.query;
    let answer: StoreAnswer = this.index.answer(caller, request);

    if (
      answer.kind === 'not_found' &&
      request.pathParams.group !== undefined &&
      f.hasAny(['group-name-case-insensitive', 'group-name-prefix'])
    ) {
      answer = this.#looseGroup(caller, request, answer as Answer);
    }

    if (
      f.has('aggregate-drops-record') &&
      q.aggregateData &&
      request.endpoint.startsWith('stats.')
    ) {
      // bug: the merge loop starts at index 1
      const daily = this.index.answer(caller, {
        ...request,
        query: { ...q, aggregateData: false },
      });
      if (daily.kind === 'list') {
        answer = {
          kind: 'list',
          records: [mergeAllStats((daily.records as StatsSummary[]).slice(1))],
        };
      }
    }
    if (facts && f.has('contacts-all-team-tags') && request.endpoint.startsWith('contacts.')) {
      answer = this.#contactsOverTeam(caller, request, answer);
    }
    if (facts && f.has('scope-leak-team') && request.endpoint === 'teams.list') {
      answer = this.#leakTeams(caller, request, answer, facts);
    }
    if (
      facts &&
      f.has('clicks-window-by-send-date') &&
      request.endpoint === 'clicks.list' &&
      (q.start !== undefined || q.end !== undefined)
    ) {
      // bug: the window is applied to the tag's send day, not to each click's date
      const all = this.index.clickGroups(caller, {}) as ClickGroup[];
      const inWindow = (day: string | undefined) =>
        day !== undefined &&
        (q.start === undefined || day >= q.start) &&
        (q.end === undefined || day <= q.end);
      answer = {
        kind: 'list',
        records: all.filter((g) => inWindow(facts.daySentByTag.get(g.tagID))),
      };
    }
    if (f.has('unique-opens-as-total') && answer.kind === 'list' && isTagEndpoint(request)) {
      answer = mapList(answer, (t: Tag) => ({
        ...t,
        stats: { ...t.stats, uniqueOpens: t.stats.totalOpens },
      }));
    }
    if (
      f.has('contact-unique-opens-as-total') &&
      answer.kind === 'list' &&
      request.endpoint.startsWith('contacts.')
    ) {
      // bug: a contact's uniqueOpens counts its opens, not the tags it opened
      answer = mapList(answer, (c: Contact) => ({
        ...c,
        stats: { ...c.stats, uniqueOpens: c.stats.totalOpens },
      }));
    }
    if (facts && f.has('tablet-not-mobile') && answer.kind === 'list' && isTagEndpoint(request)) {
      answer = mapList(answer, (t: Tag) => {
        const tablets = facts.tabletsByTag.get(t.tagID);
        if (!tablets) return t;
        return {
          ...t,
          stats: {
            ...t.stats,
            mobileOpens: t.stats.mobileOpens - tablets.opens,
            mobileClicks: t.stats.mobileClicks - tablets.clicks,
          },
        };
      });
    }
    if (
      facts &&
      f.has('daily-counts-total') &&
      request.endpoint === 'tags.daily' &&
      answer.kind === 'single' &&
      q.date !== undefined
    ) {
      // bug: counts events of the day instead of distinct recipients
      const c = facts.eventsByTagDay.get(`${request.pathParams.tagID}|${q.date}`);
      const record: DailyCounts = { opens: c?.opens ?? 0, clicks: c?.clicks ?? 0 };
      answer = { kind: 'single', record };
    }
    if (
      f.has('aggregate-record-has-date') &&
      q.aggregateData &&
      request.endpoint.startsWith('stats.') &&
      answer.kind === 'list'
    ) {
      // bug: the merge starts from a copy of the first daily record, so its date survives
      const daily = this.index.answer(caller, {
        ...request,
        query: { ...q, aggregateData: false },
      });
      const first =
        daily.kind === 'list' ? (daily.records[0] as StatsSummary | undefined) : undefined;
      if (first?.date !== undefined) {
        answer = mapList(answer, (s: StatsSummary) => ({ ...s, date: first.date }));
      }
    }
    if (f.has('latitude-out-of-range') && answer.kind === 'list' && isEventEndpoint(request)) {
      // bug: the location columns are read in the wrong order
      const swap = <T extends { latitude: string; longitude: string }>(d: T): T => ({
        ...d,
        latitude: d.longitude,
        longitude: d.latitude,
      });
      const swapEvent = (e: Click | Open) => swap(e);
      answer =
        request.endpoint === 'clicks.list'
          ? mapList(answer, (g: ClickGroup) => ({
              ...g,
              clicks: g.clicks.map((c) => ({ ...c, details: swap(c.details) })),
            }))
          : request.endpoint === 'opens.list'
            ? mapList(answer, (g: OpenGroup) => ({
                ...g,
                opens: g.opens.map((o) => ({ ...o, details: swap(o.details) })),
              }))
            : mapList(answer, swapEvent);
    }
    if (
      f.has('contact-id-inconsistent') &&
      answer.kind === 'list' &&
      (request.endpoint === 'clicks.list' || request.endpoint === 'opens.list')
    ) {
      // bug: the events carry the id of the tag's recipient entry, not the contact's id
      const entryId = <E extends { recipient: EventRecipient }>(tagID: string, e: E): E => ({
        ...e,
        recipient: { ...e.recipient, recipientID: contactIdOf(`${tagID}/${e.recipient.email}`) },
      });
      answer =
        request.endpoint === 'clicks.list'
          ? mapList(answer, (g: ClickGroup) => ({
              ...g,
              clicks: g.clicks.map((c) => entryId(g.tagID, c)),
            }))
          : mapList(answer, (g: OpenGroup) => ({
              ...g,
              opens: g.opens.map((o) => entryId(g.tagID, o)),
            }));
    }
    if (facts && f.has('out-of-scope-403') && answer.kind === 'not_found') {
      if (this.#exists(request, facts)) {
        return { kind: 'forbidden', message: 'you are not allowed to see this resource' };
      }
    }
    if (facts && f.has('out-of-scope-message') && answer.kind === 'not_found') {
      if (this.#exists(request, facts)) {
        // bug: the 404 tells an out-of-scope id from an unknown one (an existence oracle)
        return { ...answer, message: `${answer.message} (it exists but is not visible to you)` };
      }
    }
    return answer;
  }

  /**
   * Faults `group-name-case-insensitive` and `group-name-prefix`: a group segment that core
   * does not resolve is retried as the first visible group whose name matches loosely.
   */
  #looseGroup(caller: Caller, request: EndpointRequest, answer: Answer): Answer {
    const segment = request.pathParams.group!;
    const groups = visibleGroups(this.index.dataset, caller);
    const loose = groups.find(
      (g) =>
        (this.faults.has('group-name-case-insensitive') &&
          g.groupName.toLowerCase() === segment.toLowerCase()) ||
        (this.faults.has('group-name-prefix') && segment !== '' && g.groupName.startsWith(segment)),
    );
    if (loose === undefined || resolveGroup(groups, segment) !== undefined) return answer;
    return this.index.answer(caller, {
      ...request,
      pathParams: { ...request.pathParams, group: loose.groupID },
    });
  }

  #exists(request: EndpointRequest, facts: FaultFacts): boolean {
    const p = request.pathParams;
    if (p.memberID !== undefined) return facts.ids.members.has(p.memberID);
    if (p.tagID !== undefined) return facts.ids.tags.has(p.tagID);
    if (p.group !== undefined) return facts.ids.groups.has(p.group);
    if (p.contactID !== undefined) return facts.ids.contacts.has(p.contactID);
    return false;
  }

  #leakTeams(
    caller: Caller,
    request: EndpointRequest,
    answer: StoreAnswer,
    facts: FaultFacts,
  ): StoreAnswer {
    if (caller.accountType !== 'admin' || answer.kind !== 'list') return answer;
    // bug: the admin's member list is not restricted to the admin's team
    const others: TeamMember[] = [];
    for (const team of this.index.dataset.teams) {
      if (team.teamID === caller.teamID) continue;
      const someone = team.members[0];
      if (!someone || facts.teamOfMember.get(someone.memberID) !== team.teamID) continue;
      const admin: Caller = {
        memberID: someone.memberID,
        teamID: team.teamID,
        accountType: 'admin',
      };
      const type = request.query.type;
      others.push(...this.index.members(admin, type === undefined ? {} : { type }));
    }
    return { kind: 'list', records: [...answer.records, ...others] };
  }

  #contactsOverTeam(caller: Caller, request: EndpointRequest, answer: StoreAnswer): StoreAnswer {
    if (caller.accountType === 'admin' || answer.kind === 'not_found') return answer;
    // bug: the contact's counters are looked up with the team's view, not the caller's
    const team: Caller = { ...caller, accountType: 'admin' };
    const overTeam = this.index.answer(team, request);
    if (answer.kind === 'single') {
      return overTeam.kind === 'single' ? overTeam : answer;
    }
    if (answer.kind !== 'list' || overTeam.kind !== 'list') return answer;
    const byId = new Map((overTeam.records as Contact[]).map((c) => [c.contactID, c]));
    return mapList(answer, (c: Contact) => byId.get(c.contactID) ?? c);
  }
}

function isEventEndpoint(request: EndpointRequest): boolean {
  return (
    request.endpoint === 'clicks.list' ||
    request.endpoint === 'opens.list' ||
    request.endpoint === 'clicks.tag' ||
    request.endpoint === 'opens.tag'
  );
}

function isTagEndpoint(request: EndpointRequest): boolean {
  return request.endpoint === 'teams.tags' || request.endpoint === 'teams.memberTags';
}

function mapList<T>(answer: Answer & { kind: 'list' }, fn: (record: T) => T): Answer {
  return { kind: 'list', records: (answer.records as T[]).map(fn) };
}
