import { buildQueryString, type EndpointId, monotonicClock, signQuery } from '@tagtrack/core';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import type { Pair } from '../../check/sample.ts';
import { RETRIED_STATUSES, RetriesExhausted, withRetries } from '../../http/retry.ts';
import { expectError } from '../err.ts';
import { b64, hmacOnly, NoSocket, statusOverSocket } from './requests.ts';

/** What a probe's socket says on a transport fault (reset, closed, no answer in time). */
const SOCKET_FAULT = /ECONNRESET|EPIPE|socket hang up|no answer within/;

/** The Authorization header (spec §3): the forms it may take and its name in any case. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'AUTH-HEADER-FORMS',
    title:
      'the Authorization value is strict base64: the header of a valid signature without its = padding answers 401, with it 200',
    clause:
      'spec §3 Revision 2 (base64 is strict, padding required; surrounding whitespace and the header name case are free to the client)',
    endpoints: ['teams.list', 'teams.tags'],
    skipIf: hmacOnly,
    async run(ctx) {
      // Surrounding whitespace cannot be sent: fetch's Headers strips it from every value, and
      // an HTTP parser drops it as optional whitespace anyway; the header name's case is
      // AUTH-HEADER-NAME-ANY-CASE's (over a socket).
      const padded = ctx.credentials.filter((c) =>
        b64(`${c.authId}:${'0'.repeat(40)}`).endsWith('='),
      );
      if (padded.length === 0)
        return ctx.skip(
          'no credential has an authId whose base64 header needs = padding (the length of authId:signature is a multiple of 3)',
        );
      const requests: { endpoint: EndpointId; query: Pair[] }[] = [
        { endpoint: 'teams.list', query: [] },
        { endpoint: 'teams.tags', query: [['isOpened', 'true']] },
      ];
      await ctx.each(
        padded.flatMap((c) => requests.map((r) => ({ c, r }))),
        async ({ c, r }) => {
          const header = b64(`${c.authId}:${signQuery(buildQueryString(r.query), c.accessKey)}`);
          const unpadded = header.replace(/=+$/, '');
          const ok = await ctx.call(r.endpoint, {
            query: r.query,
            credential: null,
            headers: { authorization: header },
          });
          if (ok.status === 401)
            throw new Violation(
              `${describe(ok)} with the padded header of ${c.label} answered 401, so the unpadded form cannot be judged`,
              { kind: 'status', exchange: ok },
            );
          const ex = await ctx.call(r.endpoint, {
            query: r.query,
            credential: null,
            headers: { authorization: unpadded },
          });
          if (ex.status !== 401)
            throw new Violation(
              `${describe(ex)} with the header of ${c.label} without its base64 padding (${JSON.stringify(unpadded.slice(-8))} instead of ${JSON.stringify(header.slice(-8))}) answered ${ex.status}; expected 401 (base64 is strict)`,
              { kind: 'status', exchange: ex, expected: 401, actual: ex.status },
            );
          expectError(ex, 401);
        },
        { note: ({ c }) => ` (credential ${c.label})` },
      );
    },
  }),
  defineCheck({
    id: 'AUTH-HEADER-NAME-ANY-CASE',
    title:
      'the Authorization header name is read in any letter case (AUTHORIZATION, Authorization, aUTHORIZATION) over a socket',
    clause: 'spec §3 Revision 2 (the header name is case-insensitive)',
    endpoints: ['teams.list', 'teams.tags'],
    skipIf: (env) =>
      env.profile.rateLimit !== null
        ? 'the profile declares a rate limit, and these probes go around the pacing'
        : undefined,
    async run(ctx) {
      // A Fetch Request (what the suite's client and an in-memory run use) holds header names
      // in lower case, so these probes go over their own socket; an in-memory base URL has
      // none, and there the header name's case cannot be sent at all.
      if (ctx.http.ownFetch)
        return ctx.skip(
          'the run sends its requests through a fetch function of its own (in memory), not over a socket: a Fetch Request carries header names in lower case only',
        );
      const requests: { endpoint: EndpointId; query: Pair[] }[] = [
        { endpoint: 'teams.list', query: [] },
        { endpoint: 'teams.tags', query: [['isOpened', 'true']] },
      ];
      const names = ['AUTHORIZATION', 'Authorization', 'aUTHORIZATION'];
      const send = async (endpoint: EndpointId, query: Pair[], name: string) => {
        const plain = await ctx.call(endpoint, { query });
        const q = plain.target.indexOf('?');
        const qs = q < 0 ? '' : plain.target.slice(q + 1);
        // a transport fault of the probe's own socket is retried as the client's are
        const { answer: status } = await withRetries(
          () =>
            statusOverSocket(
              `${ctx.http.baseUrl}${plain.target}`,
              name,
              ctx.http.authorization(ctx.primary, qs),
              { headers: ctx.http.extraHeaders, tls: ctx.http.tlsConnect },
            ),
          {
            retries: ctx.http.retries,
            clock: monotonicClock,
            faultOfAnswer: (s) =>
              RETRIED_STATUSES.has(s) ? { cause: `answered ${s}` } : undefined,
            faultOfError: (e) =>
              e instanceof NoSocket && SOCKET_FAULT.test(e.message)
                ? { cause: e.message }
                : undefined,
          },
        ).catch((e: unknown) => {
          throw e instanceof RetriesExhausted ? new NoSocket(e.message) : e;
        });
        return { plain, status };
      };
      try {
        await send('teams.list', [], names[0]!);
      } catch (e) {
        if (!(e instanceof NoSocket)) throw e;
        return ctx.skip(
          `the base URL cannot be reached over a socket (${e.message}; an in-memory run?): a Fetch Request carries header names in lower case only`,
        );
      }
      await ctx.each(
        requests.flatMap((r) => names.map((name) => ({ r, name }))),
        async ({ r, name }) => {
          const { plain, status } = await send(r.endpoint, r.query, name);
          ctx.compared();
          if (status !== plain.status)
            throw new Violation(
              `GET ${plain.target} with the header name ${JSON.stringify(name)} answered ${status}; with the name in lower case it answered ${plain.status} (the header name is case-insensitive)`,
              { kind: 'status', expected: plain.status, actual: status },
            );
        },
      );
    },
  }),
];
