import { authorizationHeader, signQuery } from '@tagtrack/core';
import { type Check, type CheckContext, defineCheck, describe, Violation } from './api.ts';
import { expectError } from './input.ts';
import { sampleCalls } from './sample.ts';

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

const hmacOnly = (env: { profile: { auth: string } }) =>
  env.profile.auth === 'hmac-sha1' ? undefined : `the profile's auth scheme is ${env.profile.auth}`;

/** Sends each sampled endpoint with `header` (or none) and expects 401 with the error body. */
async function expect401(
  ctx: CheckContext,
  header: (query: string) => string | undefined,
): Promise<void> {
  for (const { endpoint, call } of await sampleCalls(ctx)) {
    const query = call.query ?? [];
    const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const h = header(qs);
    try {
      expectError(
        await ctx.call(endpoint, {
          ...call,
          credential: null,
          ...(h === undefined ? {} : { headers: { authorization: h } }),
        }),
        401,
      );
    } catch (e) {
      if (e instanceof Violation) ctx.fail(e.message, e.details);
      else throw e;
    }
  }
}

/** Authentication (decisions §1): every endpoint refuses missing, malformed and wrong credentials. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'AUTH-401-MISSING',
    area: 'auth',
    title: 'every endpoint without an Authorization header answers 401',
    clause: 'decisions §1 (missing credentials: 401), §5',
    endpoints: [],
    async run(ctx) {
      await expect401(ctx, () => undefined);
    },
  }),
  defineCheck({
    id: 'AUTH-401-WRONG-KEY',
    area: 'auth',
    title: 'every endpoint signed with a wrong access key answers 401',
    clause: 'decisions §1 (wrong credentials: 401)',
    endpoints: [],
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      await expect401(ctx, (qs) =>
        ctx.profile.auth === 'bearer'
          ? `Bearer ${accessKey}x`
          : authorizationHeader(authId, `${accessKey}-wrong`, qs),
      );
    },
  }),
  defineCheck({
    id: 'AUTH-401-UNKNOWN-ID',
    area: 'auth',
    title: 'an unknown authId answers 401',
    clause: 'decisions §1',
    endpoints: [],
    skipIf: hmacOnly,
    async run(ctx) {
      await expect401(ctx, (qs) =>
        authorizationHeader('no-such-auth-id', ctx.primary.accessKey, qs),
      );
    },
  }),
  defineCheck({
    id: 'AUTH-401-MALFORMED',
    area: 'auth',
    title:
      'a malformed Authorization header (Basic scheme, not base64, no colon, no hex signature) answers 401',
    clause: 'decisions §1 (malformed credentials: 401; no Basic prefix)',
    endpoints: ['teams.list'],
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      const sig = signQuery('', accessKey);
      const headers =
        ctx.profile.auth === 'bearer'
          ? ['Bearer', `Token ${accessKey}`, accessKey, '!!!']
          : [
              `Basic ${b64(`${authId}:${sig}`)}`,
              '!!!not base64!!!',
              b64(`${authId}${sig}`),
              b64(`${authId}:not-a-hex-signature`),
              b64(`:${sig}`),
              `${authId}:${sig}`,
            ];
      for (const h of headers) {
        try {
          expectError(
            await ctx.call('teams.list', { credential: null, headers: { authorization: h } }),
            401,
          );
        } catch (e) {
          if (e instanceof Violation)
            ctx.fail(`${e.message} (header ${JSON.stringify(h.slice(0, 40))})`, e.details);
          else throw e;
        }
      }
    },
  }),
  defineCheck({
    id: 'AUTH-401-SIGNATURE-SCOPE',
    area: 'auth',
    title: 'a signature of another query string (or of the parameters reordered) answers 401',
    clause: 'decisions §1 (signature over the query string in request order)',
    endpoints: ['teams.tags'],
    skipIf: hmacOnly,
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      const variants: [string, [string, string][]][] = [
        ['', [['isOpened', 'true']]],
        ['isOpened=false', [['isOpened', 'true']]],
        [
          'isOpened=true&start=2020-01-01',
          [
            ['start', '2020-01-01'],
            ['isOpened', 'true'],
          ],
        ],
      ];
      for (const [signed, query] of variants) {
        try {
          expectError(
            await ctx.call('teams.tags', {
              query,
              credential: null,
              headers: { authorization: authorizationHeader(authId, accessKey, signed) },
            }),
            401,
          );
        } catch (e) {
          if (e instanceof Violation)
            ctx.fail(`${e.message} (signed ${JSON.stringify(signed)})`, e.details);
          else throw e;
        }
      }
    },
  }),
  defineCheck({
    id: 'AUTH-ACCEPTS-DECODED-FORM',
    area: 'auth',
    title:
      'a signature over the percent-decoded query string (what the PHP client signs) is accepted',
    clause: 'decisions §1 (raw or percent-decoded form)',
    endpoints: ['teams.list'],
    skipIf: hmacOnly,
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      const query: [string, string][] = [['total', 'a b/c']];
      const ex = await ctx.call('teams.list', {
        query,
        credential: null,
        headers: { authorization: authorizationHeader(authId, accessKey, 'total=a b/c') },
      });
      if (ex.status !== 200)
        ctx.fail(
          `${describe(ex)} signed over the decoded form "total=a b/c" answered ${ex.status}, expected 200`,
          { exchange: ex },
        );
      const raw = await ctx.call('teams.list', { query });
      if (raw.status !== 200)
        ctx.fail(`${describe(raw)} signed over the raw form answered ${raw.status}, expected 200`, {
          exchange: raw,
        });
    },
  }),
];
