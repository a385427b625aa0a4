import {
  CONTENT_TYPES,
  ENDPOINT_IDS,
  type EndpointId,
  endpointById,
  htmlDocumentProblems,
  parseHtml,
  parseText,
  type Rtn,
  tableColumns,
} from '@tagtrack/core';
import type { Exchange } from '../http.ts';
import { type Check, type CheckContext, defineCheck, describe, ensure, Violation } from './api.ts';
import { type MemberRecord, sampleCalls } from './sample.ts';

/** Whether a Content-Type header value equals `expected` (media type and charset, case-insensitive). */
export function contentTypeMatches(actual: string | undefined, expected: string): boolean {
  if (actual === undefined) return false;
  const norm = (v: string) =>
    v
      .toLowerCase()
      .split(';')
      .map((p) => p.trim().replace(/"/g, ''))
      .filter((p) => p !== '')
      .sort()
      .join(';');
  return norm(actual) === norm(expected);
}

/** Runs `each` on every sampled endpoint call with `rtn` (absent for the default). */
async function forEachSample(
  ctx: CheckContext,
  rtn: Rtn | undefined,
  each: (endpoint: EndpointId, ex: Exchange) => void,
): Promise<void> {
  for (const { endpoint, call } of await sampleCalls(ctx)) {
    const query = [...(call.query ?? []), ...(rtn === undefined ? [] : [['rtn', rtn] as const])];
    const ex = await ctx.call(endpoint, { ...call, query });
    try {
      each(endpoint, ex);
    } catch (e) {
      if (e instanceof Violation) ctx.fail(e.message, { exchange: ex, ...e.details });
      else throw e;
    }
  }
}

function unsupported(rtn: Rtn) {
  return (env: { profile: { rtn: readonly Rtn[] } }) =>
    env.profile.rtn.includes(rtn) ? undefined : `the profile does not support rtn=${rtn}`;
}

/** Schema checks: bodies and content types of every endpoint in every format (decisions §3, §5, §7, §8). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'SCHEMA-JSON-ENVELOPE',
    area: 'schema',
    title: 'JSON bodies of every endpoint match the envelope and record schemas',
    clause: 'decisions §3 (envelope), source: Resources and their fields, decisions §8 (values)',
    endpoints: ENDPOINT_IDS,
    async run(ctx) {
      for (const rtn of [undefined, 'json'] as const) {
        await forEachSample(ctx, rtn, (endpoint, ex) => {
          ctx.envelope(endpoint, ex);
        });
      }
    },
  }),
  defineCheck({
    id: 'SCHEMA-JSON-CONTENT-TYPE',
    area: 'schema',
    title: 'rtn=json (and the default) answers Content-Type application/json; charset=utf-8',
    clause: 'decisions §7',
    endpoints: ENDPOINT_IDS,
    async run(ctx) {
      for (const rtn of [undefined, 'json'] as const) {
        await forEachSample(ctx, rtn, (_endpoint, ex) => {
          const ct = ex.responseHeaders['content-type'];
          ensure(
            contentTypeMatches(ct, CONTENT_TYPES.json),
            `${describe(ex)}: Content-Type ${JSON.stringify(ct)}, expected "${CONTENT_TYPES.json}"`,
            { exchange: ex, expected: CONTENT_TYPES.json, actual: ct },
          );
        });
      }
    },
  }),
  ...(['text', 'html'] as const).map((rtn) =>
    defineCheck({
      id: `SCHEMA-${rtn.toUpperCase()}-FORMAT`,
      area: 'schema',
      title: `rtn=${rtn} answers ${CONTENT_TYPES[rtn]} with the endpoint's columns${rtn === 'html' ? ' in a complete HTML5 document' : ''}`,
      clause: 'decisions §7',
      endpoints: ENDPOINT_IDS,
      skipIf: unsupported(rtn),
      async run(ctx) {
        await forEachSample(ctx, rtn, (endpoint, ex) => {
          ensure(ex.status === 200, `${describe(ex)} answered ${ex.status}, expected 200`, {
            exchange: ex,
          });
          const ct = ex.responseHeaders['content-type'];
          ensure(
            contentTypeMatches(ct, CONTENT_TYPES[rtn]),
            `${describe(ex)}: Content-Type ${JSON.stringify(ct)}, expected "${CONTENT_TYPES[rtn]}"`,
            { exchange: ex },
          );
          if (rtn === 'html') {
            const problems = htmlDocumentProblems(ex.body);
            ensure(problems.length === 0, `${describe(ex)}: ${problems.join('; ')}`, {
              exchange: ex,
            });
          }
          let columns: string[];
          try {
            columns = (rtn === 'text' ? parseText(ex.body) : parseHtml(ex.body)).columns;
          } catch (e) {
            throw new Violation(`${describe(ex)}: ${(e as Error).message}`, { exchange: ex });
          }
          const expected = tableColumns(endpointById(endpoint));
          ensure(
            columns.join('\t') === expected.join('\t'),
            `${describe(ex)}: columns [${columns.join(', ')}], expected [${expected.join(', ')}]`,
            { exchange: ex, expected, actual: columns },
          );
        });
      },
    }),
  ),
  defineCheck({
    id: 'SCHEMA-MEMBER-GROUP-FIELDS',
    area: 'schema',
    title:
      'groupID and groupName come together; a member without a group omits them (or sends empty strings, per profile)',
    clause: 'decisions §8, source: Team member',
    endpoints: ['teams.list'],
    async run(ctx) {
      const ex = await ctx.call('teams.list');
      const { data } = ctx.envelope('teams.list', ex) as { data: MemberRecord[] };
      for (const m of data) {
        const hasId = 'groupID' in m;
        const hasName = 'groupName' in m;
        const empty = m.groupID === '' && m.groupName === '';
        if (hasId !== hasName) {
          ctx.fail(
            `member ${m.memberID} has ${hasId ? 'groupID' : 'groupName'} without the other`,
            {
              exchange: ex,
            },
          );
        } else if (ctx.profile.memberWithoutGroup === 'omit' && hasId && empty) {
          ctx.fail(
            `member ${m.memberID} has no group but sends empty groupID/groupName; the profile says omit`,
            { exchange: ex },
          );
        } else if (
          ctx.profile.memberWithoutGroup === 'empty' &&
          !hasId &&
          !ctx.failures.some((f) => f.message.includes(m.memberID))
        ) {
          ctx.fail(`member ${m.memberID} omits groupID/groupName; the profile says empty strings`, {
            exchange: ex,
          });
        } else if (hasId && !empty && (m.groupID === '' || m.groupName === '')) {
          ctx.fail(`member ${m.memberID} has one empty and one non-empty group field`, {
            exchange: ex,
          });
        }
      }
    },
  }),
];
