import {
  ENDPOINT_IDS as ALL_ENDPOINT_IDS,
  authorizationHeader,
  buildQueryString,
  type EndpointId,
  signQuery,
} from '@tagtrack/core';
import fc from 'fast-check';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { type Pair, sampleCalls } from '../../check/sample.ts';
import type { Exchange } from '../../http/client.ts';
import { expectError } from '../err.ts';
import { b64, formEncode, hmacOnly, phpUrldecode, sendRawQuery } from './requests.ts';

/** The HMAC signature (spec §3): its hex in any case, what it covers, the decoded form of the query it signs. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'AUTH-HEX-ANY-CASE',
    title: 'the hex signature is accepted in upper and in mixed case',
    clause: 'spec §3 Revision 2 (the hex signature is compared case-insensitively)',
    endpoints: ['teams.list', 'teams.tags', 'contacts.list'],
    skipIf: hmacOnly,
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      const requests: { endpoint: EndpointId; query: Pair[] }[] = [
        { endpoint: 'teams.list', query: [] },
        { endpoint: 'teams.tags', query: [['isOpened', 'true']] },
        { endpoint: 'contacts.list', query: [['rtn', 'text']] },
      ];
      const forms: [string, (hex: string) => string][] = [
        ['upper case', (hex) => hex.toUpperCase()],
        [
          'mixed case',
          (hex) => Array.from(hex, (c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join(''),
        ],
      ];
      await ctx.each(
        requests.flatMap((r) => forms.map((f) => ({ r, f }))),
        async ({ r, f: [how, form] }) => {
          const plain = await ctx.call(r.endpoint, { query: r.query });
          const hex = form(signQuery(buildQueryString(r.query), accessKey));
          const ex = await ctx.call(r.endpoint, {
            query: r.query,
            credential: null,
            headers: { authorization: b64(`${authId}:${hex}`) },
          });
          ctx.compared();
          if (ex.status === 401 || ex.status !== plain.status)
            throw new Violation(
              `${describe(ex)} with the right signature in ${how} hex (${hex}) answered ${ex.status}; in lower case it answered ${plain.status}`,
              { kind: 'status', exchange: ex },
            );
        },
      );
    },
  }),
  defineCheck({
    id: 'AUTH-401-SIGNATURE-SCOPE',
    title:
      'a signature of another query string (the parameters reordered, or without a parameter that was sent: cursor, total, rtn and next included) answers 401',
    clause:
      'spec §3 (signature over the query string in request order), §3 Revision 2 (every sent parameter is signed, next included)',
    endpoints: ALL_ENDPOINT_IDS,
    skipIf: hmacOnly,
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      const variants: [string, Pair[], EndpointId, Record<string, string>?][] = [
        ['', [['isOpened', 'true']], 'teams.tags'],
        ['isOpened=false', [['isOpened', 'true']], 'teams.tags'],
        [
          'isOpened=true&start=2020-01-01',
          [
            ['start', '2020-01-01'],
            ['isOpened', 'true'],
          ],
          'teams.tags',
        ],
      ];
      // every parameter that is signed when present, left out of the signed string
      const full: Pair[] = [
        ['isOpened', 'true'],
        ['cursor', '0'],
        ['total', '5'],
        ['rtn', 'json'],
        ['next', '3'],
      ];
      for (const name of ['cursor', 'total', 'rtn', 'next']) {
        variants.push([buildQueryString(full.filter(([k]) => k !== name)), full, 'teams.tags']);
        const alone = full.find(([k]) => k === name)!;
        variants.push(['', [alone], 'teams.tags']);
        variants.push(['isOpened=true', [['isOpened', 'true'], alone], 'teams.tags']);
      }
      // every other endpoint (single-object ones included): its sampled query plus one of the
      // four parameters (rotating), signed without it
      const extra: Pair[] = [
        ['cursor', '0'],
        ['total', '5'],
        ['rtn', 'json'],
        ['next', '3'],
      ];
      for (const [i, s] of (await sampleCalls(ctx)).entries()) {
        if (s.endpoint === 'teams.tags') continue;
        const own = s.call.query ?? [];
        variants.push([
          buildQueryString(own),
          [...own, extra[i % extra.length]!],
          s.endpoint,
          s.call.pathParams ?? {},
        ]);
      }
      // the control: the full query signed properly is accepted, else the 401s prove nothing
      const control = await ctx.call('teams.tags', { query: full });
      if (control.status === 401)
        ctx.fail(
          `${describe(control)}, properly signed, answered 401: the signature scope cannot be judged`,
          { kind: 'status', exchange: control },
        );
      await ctx.each(variants, async ([signed, query, endpoint, pathParams]) => {
        const ex = await ctx.call(endpoint, {
          ...(pathParams === undefined ? {} : { pathParams }),
          query,
          credential: null,
          headers: { authorization: authorizationHeader(authId, accessKey, signed) },
        });
        if (ex.status !== 401)
          throw new Violation(
            `${describe(ex)} signed over ${JSON.stringify(signed)}, not over the query sent, answered ${ex.status}; expected 401 (every sent parameter is signed, in order)`,
            { kind: 'status', exchange: ex },
          );
        expectError(ex, 401);
      });
    },
  }),
  defineCheck({
    id: 'AUTH-ACCEPTS-DECODED-FORM',
    title:
      'a signature over the percent-decoded query string (what the PHP client signs, + read as a space) is accepted, as is one over the raw string',
    clause: 'spec §3 (raw or percent-decoded form), §3 Revision 2 (PHP urldecode: + is a space)',
    endpoints: ['teams.list'],
    skipIf: hmacOnly,
    async run(ctx) {
      const { authId, accessKey } = ctx.primary;
      const accepted = (ex: Exchange, signed: string) => {
        if (ex.status !== 200)
          throw new Violation(
            `GET ${new URL(ex.url).pathname}${new URL(ex.url).search} signed over ${JSON.stringify(signed)} answered ${ex.status}, expected 200`,
            { kind: 'status', exchange: ex },
          );
      };
      // [raw query as sent, the string signed]
      const cases: [string, string][] = [
        ['total=a%20b%2Fc', 'total=a b/c'], // space as %20
        ['total=a+b', 'total=a b'], // space as +
        ['total=a%2Bb', 'total=a+b'], // a literal + as %2B
        ['total=a%2bb+c', 'total=a+b c'], // lower-case hex
        ['total=x+y%2Bz%20w&next=%C3%A9%2f', 'total=x y+z w&next=é/'],
        ['total=a+b', 'total=a+b'], // the raw form, + and all
        ['total=a%2Bb', 'total=a%2Bb'],
      ];
      await ctx.each(cases, async ([raw, signed]) =>
        accepted(
          await sendRawQuery(ctx, '/teams', raw, authorizationHeader(authId, accessKey, signed)),
          signed,
        ),
      );
      // the suite's own encoding, signed by the client over the raw form
      await ctx.each([[['total', 'a b/c+d']] as Pair[]], async (query) => {
        const ex = await ctx.call('teams.list', { query });
        accepted(ex, ex.target.slice(ex.target.indexOf('?') + 1));
      });
      const chars = fc.constantFrom(
        'a',
        'Z',
        '0',
        ' ',
        ' ',
        '+',
        '/',
        '&',
        '=',
        '%',
        'é',
        '☃',
        '~',
      );
      await ctx.property(
        fc.record({
          name: fc.constantFrom('total', 'next'),
          value: fc.string({ unit: chars, maxLength: 10 }),
          plus: fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
          upper: fc.boolean(),
        }),
        async ({ name, value, plus, upper }) => {
          const raw = `${name}=${formEncode(
            value,
            (i) => plus[i % plus.length]!,
            () => upper,
          )}`;
          const signed = phpUrldecode(raw);
          accepted(
            await sendRawQuery(ctx, '/teams', raw, authorizationHeader(authId, accessKey, signed)),
            signed,
          );
        },
      );
    },
  }),
];
