import { authorizationHeader, signQuery } from '@tagtrack/core';
import fc from 'fast-check';
import { type Check, defineCheck } from '../../check/define.ts';
import { type Sample, sampleCalls } from '../../check/sample.ts';
import { expectError } from '../err.ts';
import { arbUnknownAuthId, b64, ensureSame401, expect401, hmacOnly } from './requests.ts';

/** Requests refused with 401 (spec §3): missing, wrong, unknown and malformed credentials, one body for all. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'AUTH-401-MISSING',
    title: 'every endpoint without an Authorization header answers 401',
    clause: 'spec §3 (missing credentials: 401), §6',
    endpoints: [],
    async run(ctx) {
      await expect401(ctx, () => undefined);
    },
  }),
  defineCheck({
    id: 'AUTH-401-WRONG-KEY',
    title: 'every endpoint signed with a wrong access key answers 401',
    clause: 'spec §3 (wrong credentials: 401)',
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
    title: 'an unknown authId answers 401',
    clause: 'spec §3',
    endpoints: [],
    skipIf: hmacOnly,
    async run(ctx) {
      await expect401(ctx, (qs) =>
        authorizationHeader('no-such-auth-id', ctx.primary.accessKey, qs),
      );
    },
  }),
  defineCheck({
    id: 'AUTH-401-SAME-BODY',
    title:
      'an unknown authId and a wrong signature of a known authId answer 401 with the same body (no authId existence oracle)',
    clause: 'spec §3 Revision 2 (unknown authId and wrong signature: the same 401 body)',
    endpoints: ['teams.list', 'teams.tags'],
    skipIf: hmacOnly,
    async run(ctx) {
      const known = new Set([ctx.primary.authId, ...ctx.credentials.map((c) => c.authId)]);
      const id = ctx.primary.authId;
      const near = [`${id}x`, id.length > 1 ? id.slice(0, -1) : 'x', id.toUpperCase()].filter(
        (x) => !known.has(x),
      );
      const fixed: Sample[] = [
        { endpoint: 'teams.list', call: {} },
        { endpoint: 'teams.tags', call: { query: [['isOpened', 'true']] } },
      ];
      await ctx.each(
        fixed.flatMap((s) => ['no-such-auth-id', ...near].map((authId) => ({ s, authId }))),
        ({ s, authId }) => ensureSame401(ctx, s, authId),
      );
      const samples = await sampleCalls(ctx);
      await ctx.property(
        fc.tuple(fc.constantFrom(...samples), arbUnknownAuthId(known)),
        ([s, authId]) => ensureSame401(ctx, s, authId),
      );
    },
  }),
  defineCheck({
    id: 'AUTH-401-MALFORMED',
    title:
      'a malformed Authorization header (Basic scheme, not base64, no colon, no hex signature) answers 401',
    clause: 'spec §3 (malformed credentials: 401; no Basic prefix)',
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
      await ctx.each(
        headers,
        async (h) =>
          expectError(
            await ctx.call('teams.list', { credential: null, headers: { authorization: h } }),
            401,
          ),
        { note: (h) => ` (header ${JSON.stringify(h.slice(0, 40))})` },
      );
    },
  }),
];
