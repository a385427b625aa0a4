import { ENDPOINT_LIST, type Endpoint, endpointById } from '@tagtrack/core';
import fc from 'fast-check';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import {
  answersNoMember,
  type GroupRef,
  knownVisibleGroups,
  mayHideEmptyGroups,
  resolveGroupSegment,
} from '../../check/groups.ts';
import { type Pair, type Sample, sampleCalls } from '../../check/sample.ts';
import { expectError } from '../err.ts';
import { ALL_ENDPOINTS } from './calls.ts';
import { ensureSameAnswerInSlices } from './same-answer.ts';

/**
 * Group segments that must answer 404 because no visible group has them as exact id or
 * exact name (spec §4 Revision 2): each group's name in upper, lower and swapped case,
 * two proper prefixes of the name (by code point) and a proper prefix of the id. Segments in
 * `taken` (the ids and names of every visible group), empty ones and repeats are left out.
 */
export function groupNearMisses(
  groups: readonly GroupRef[],
  taken: ReadonlySet<string>,
): { segment: string; group: GroupRef; how: string }[] {
  const out: { segment: string; group: GroupRef; how: string }[] = [];
  const seen = new Set<string>();
  const add = (segment: string, group: GroupRef, how: string) => {
    if (segment === '' || taken.has(segment) || seen.has(segment)) return;
    seen.add(segment);
    out.push({ segment, group, how });
  };
  for (const g of groups) {
    const name = g.groupName;
    add(name.toUpperCase(), g, 'the name in upper case');
    add(name.toLowerCase(), g, 'the name in lower case');
    add(swapCase(name), g, 'the name with its letter case swapped');
    const chars = Array.from(name);
    if (chars.length > 1) {
      add(chars.slice(0, -1).join(''), g, 'a proper prefix of the name');
      add(chars.slice(0, Math.ceil(chars.length / 2)).join(''), g, 'a proper prefix of the name');
    }
    const id = Array.from(g.groupID);
    if (id.length > 1) add(id.slice(0, -1).join(''), g, 'a proper prefix of the id');
  }
  return out;
}

function swapCase(s: string): string {
  return Array.from(s, (c) => {
    const u = c.toUpperCase();
    return u === c ? c.toLowerCase() : u;
  }).join('');
}

/** Whether a code point may go unencoded in a path segment (RFC 3986 unreserved). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The path of `endpoint` with `pathParams`, each segment (literal or parameter) written with
 * the characters at running indices `encode(i)` percent-encoded as UTF-8 (`%XX`, hex digits
 * in upper or lower case). Characters that must be encoded always are. Every decoding of the
 * result is the path `buildPath` gives (spec §6 Revision 2: segments are decoded).
 */
export function encodedPath(
  endpoint: Endpoint,
  pathParams: Partial<Record<string, string>>,
  encode: (i: number) => boolean,
  upperHex: boolean,
): string {
  let i = 0;
  const segments = endpoint.path
    .split('/')
    .slice(1)
    .map((t) => {
      const raw = t.startsWith('{') ? pathParams[t.slice(1, -1)] : t;
      if (raw === undefined) throw new Error(`path parameter ${t} is required by ${endpoint.path}`);
      return Array.from(raw, (c) => {
        const pick = encode(i++);
        if (!pick && UNRESERVED.test(c)) return c;
        return Array.from(new TextEncoder().encode(c), (b) => {
          const h = b.toString(16).padStart(2, '0');
          return `%${upperHex ? h.toUpperCase() : h}`;
        }).join('');
      }).join('');
    });
  return `/${segments.join('/')}`;
}

/** Unknown ids and paths answer 404; path segments are decoded (spec §4, §6, §6). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-404-UNKNOWN-ID',
    title: 'an unknown member, group, tag or contact id answers 404 with the error body',
    clause: 'spec §4, §6 (group segment), §6',
    endpoints: ENDPOINT_LIST.filter((e) => e.pathParams.length > 0).map((e) => e.id),
    async run(ctx) {
      const unknown = 'zz0000unknown0000id00zz';
      for (const e of ENDPOINT_LIST.filter((x) => x.pathParams.length > 0)) {
        const pathParams = Object.fromEntries(e.pathParams.map((p) => [p, unknown]));
        const query: [string, string][] = e.requiredQuery.includes('date')
          ? [['date', '2024-01-01']]
          : [];
        await ctx.attempt(async () =>
          expectError(await ctx.call(e.id, { pathParams, query }), 404),
        );
      }
    },
  }),
  defineCheck({
    id: 'INPUT-404-GROUP-NAME-EXACT',
    title:
      "a visible group's exact name answers like its id; the name in another letter case or a proper prefix answers 404",
    clause: 'spec §4 Revision 2 (group segment: exact id, else exact case-sensitive name)',
    endpoints: ['teams.group', 'stats.group'],
    async run(ctx) {
      const d = await ctx.discover();
      if (d.groups.length === 0)
        return ctx.skip('no group is visible to the credential (no visible member has one)');
      // every group the segment may resolve to: the discovered ones, and in fixture mode the
      // dataset's visible groups (an admin also sees groups without members)
      const visible = knownVisibleGroups(ctx, d);
      // in blind mode an admin may see a group without members that no list shows: a name
      // (or a near miss of one) may resolve to it, which answers no member (spec §4)
      const hidden = mayHideEmptyGroups(ctx);
      const taken = new Set(visible.flatMap((g) => [g.groupID, g.groupName]));
      const aggregated: Pair[] = [['aggregateData', 'true']];
      await ctx.each(d.groups, async (g) => {
        const target = resolveGroupSegment(visible, g.groupName)!;
        const what = `group name ${JSON.stringify(g.groupName)} instead of the id ${target.groupID} it resolves to`;
        // the verdict rests on these reads: on moving data a difference is read again (still)
        await ctx.onStillData(async (fresh) => {
          const cache = fresh ? { cache: false } : {};
          const byId = await ctx.call('teams.group', {
            pathParams: { group: target.groupID },
            ...cache,
          });
          const byName = await ctx.call('teams.group', {
            pathParams: { group: g.groupName },
            ...cache,
          });
          const statsById = await ctx.call('stats.group', {
            pathParams: { group: target.groupID },
            query: aggregated,
            ...cache,
          });
          const statsByName = await ctx.call('stats.group', {
            pathParams: { group: g.groupName },
            query: aggregated,
            ...cache,
          });
          if (hidden && answersNoMember(byName) && answersNoMember(statsByName)) return;
          await ensureSameAnswerInSlices('teams.group', byId, byName, what, { urls: 'ignore' });
          await ensureSameAnswerInSlices('stats.group', statsById, statsByName, what, {
            urls: 'ignore',
          });
        });
      });
      const misses = groupNearMisses(d.groups, taken);
      await ctx.each(
        misses.flatMap((m) =>
          (['teams.group', 'stats.group'] as const).map((endpoint) => ({ ...m, endpoint })),
        ),
        async ({ segment, group, how, endpoint }) => {
          const ex = await ctx.call(endpoint, { pathParams: { group: segment } });
          if (hidden && answersNoMember(ex)) return;
          if (ex.status !== 404)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${JSON.stringify(segment)}, ${how} of visible group ${group.groupID} ${JSON.stringify(group.groupName)}; expected 404 (a group segment is an exact id or an exact, case-sensitive name)`,
              { kind: 'status', exchange: ex },
            );
          expectError(ex, 404);
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-PATH-SEGMENTS-DECODED',
    title:
      'path segments are percent-decoded before matching: /%74eams answers like /teams, an encoded id like the plain one',
    clause: 'spec §6 Revision 2 (paths: each segment is percent-decoded)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      // each verdict rests on its two reads: on moving data a difference is read again (still)
      const compare = (s: Sample, path: string) =>
        ctx.onStillData(async (fresh) => {
          const cache = fresh ? { cache: false } : {};
          const plain = await ctx.call(s.endpoint, { ...s.call, ...cache });
          const ex = await ctx.raw({
            path,
            query: s.call.query ?? [],
            credential: ctx.primary,
            ...cache,
          });
          await ensureSameAnswerInSlices(s.endpoint, plain, ex, `the path percent-encoded`, {
            urls: 'ignore',
          });
        });
      const first = (i: number) => i === 0;
      // /%74eams, /co%6etacts, /%73tats…: the first character of the path; and for each
      // endpoint with an id, the first character of the id (hex in either case)
      await ctx.each(
        samples.flatMap((s, k) => {
          const e = endpointById(s.endpoint);
          const idStart = e.path.indexOf('{');
          const firstOfId = (i: number) => i === e.path.slice(0, idStart).replace(/\//g, '').length;
          return [
            encodedPath(e, s.call.pathParams ?? {}, first, k % 2 === 0),
            ...(idStart < 0
              ? []
              : [encodedPath(e, s.call.pathParams ?? {}, firstOfId, k % 2 === 1)]),
          ].map((path) => ({ s, path }));
        }),
        ({ s, path }) => compare(s, path),
      );
      await ctx.property(
        fc.record({
          s: fc.constantFrom(...samples),
          mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 48 }),
          upper: fc.boolean(),
        }),
        ({ s, mask, upper }) => {
          const pick = mask.some((b) => b)
            ? (i: number) => mask[i % mask.length]!
            : (i: number) => i === 0;
          return compare(
            s,
            encodedPath(endpointById(s.endpoint), s.call.pathParams ?? {}, pick, upper),
          );
        },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-404-UNKNOWN-PATH',
    title:
      'an unknown path answers 404 with the error body: every endpoint with a trailing slash or an empty segment, an extra or a missing segment',
    clause:
      'spec §6 (unknown path: 404), §6 Revision 2 (empty segments not normalised), §11 (a trailing slash is another path), §6',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      // from the catalogue: each sampled endpoint's path with a trailing slash and, when it
      // has two segments or more, with its last `/` doubled (never the first: `//x` would be
      // read as a host by URL parsers)
      const derived = samples.flatMap((s) => {
        const path = encodedPath(
          endpointById(s.endpoint),
          s.call.pathParams ?? {},
          () => false,
          false,
        );
        const last = path.lastIndexOf('/');
        return [
          { path: `${path}/`, query: s.call.query ?? [], how: 'a trailing slash' },
          ...(last > 0
            ? [
                {
                  path: `${path.slice(0, last)}/${path.slice(last)}`,
                  query: s.call.query ?? [],
                  how: 'an empty segment',
                },
              ]
            : []),
        ];
      });
      const fixed = ['/nothing-here', '/teams/members', '/teams/tags/extra', '/member'].map(
        (path) => ({ path, query: [] as readonly Pair[], how: 'an unknown path' }),
      );
      await ctx.each(
        [...fixed, ...derived],
        async ({ path, query }) =>
          expectError(await ctx.raw({ path, query, credential: ctx.primary }), 404),
        { readsOwn: true, note: ({ how }) => ` (${how})` },
      );
    },
  }),
];
