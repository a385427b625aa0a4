import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  ENDPOINT_IDS as ALL_ENDPOINT_IDS,
  authorizationHeader,
  buildQueryString,
  type EndpointId,
  signQuery,
} from '@tagtrack/core';
import fc from 'fast-check';
import type { Exchange } from '../http.ts';
import type { CheckContext } from './context.ts';
import { type Check, defineCheck } from './define.ts';
import { expectError } from './err.ts';
import { describe, Violation } from './failure.ts';
import { firstDifference, type Pair, type Sample, sampleCalls } from './sample.ts';
import { parseJson } from './walk.ts';

/** Requirement id prefix of this file's checks (area `auth`). */
export const prefix = 'AUTH';

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

const hmacOnly = (env: { profile: { auth: string } }) =>
  env.profile.auth === 'hmac-sha1' ? undefined : `the profile's auth scheme is ${env.profile.auth}`;

/**
 * PHP's `urldecode` of a query string (decisions §1 Revision 2): `+` is a space, each valid
 * `%XX` is a byte (hex digits in either case), other characters stand for their UTF-8 bytes;
 * the bytes are read as UTF-8. A `%` not followed by two hex digits stays as it is. Written
 * independently of core's `signableForms`, which it checks.
 */
export function phpUrldecode(s: string): string {
  const bytes: number[] = [];
  const utf8 = new TextEncoder();
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '+') {
      bytes.push(0x20);
      i++;
    } else if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = String.fromCodePoint(s.codePointAt(i)!);
      bytes.push(...utf8.encode(cp));
      i += cp.length;
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

/**
 * Percent-encodes `value` for a query string the way a form or a PHP client may: a space as
 * `+` when `plus(i)` else `%20`, other characters outside `[A-Za-z0-9-._~]` as `%XX` of their
 * UTF-8 bytes with upper-case hex when `upper(i)` (`i` is the character's index). So `+` in
 * the value always goes as `%2B`/`%2b`. {@link phpUrldecode} of the result is `value`.
 */
export function formEncode(
  value: string,
  plus: (i: number) => boolean,
  upper: (i: number) => boolean,
): string {
  let i = 0;
  return Array.from(value, (c) => {
    const k = i++;
    if (c === ' ' && plus(k)) return '+';
    if (/^[A-Za-z0-9\-._~]$/.test(c)) return c;
    return Array.from(new TextEncoder().encode(c), (b) => {
      const h = b.toString(16).padStart(2, '0');
      return `%${upper(k) ? h.toUpperCase() : h}`;
    }).join('');
  }).join('');
}

/**
 * Sends `GET path?rawQuery` with the query string exactly as given (a `+`, `%2b`… kept; the
 * HTTP client's `rawQuery`) and the Authorization header `authorization`. Throws an `Error`
 * (a suite problem, not a failure) when the request did not carry `rawQuery` verbatim.
 */
async function sendRawQuery(
  ctx: CheckContext,
  path: string,
  rawQuery: string,
  authorization: string,
): Promise<Exchange> {
  const ex = await ctx.raw({ path, rawQuery, credential: null, headers: { authorization } });
  const sent = new URL(ex.url);
  if (sent.search !== `?${rawQuery}`)
    throw new Error(`the suite could not send the raw query ${rawQuery}: it sent ${ex.url}`);
  return ex;
}

/** Sends each sampled endpoint with `header` (or none) and expects 401 with the error body. */
async function expect401(
  ctx: CheckContext,
  header: (query: string) => string | undefined,
): Promise<void> {
  await ctx.each(await sampleCalls(ctx), async ({ endpoint, call }) => {
    const query = call.query ?? [];
    const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const h = header(qs);
    expectError(
      await ctx.call(endpoint, {
        ...call,
        credential: null,
        ...(h === undefined ? {} : { headers: { authorization: h } }),
      }),
      401,
    );
  });
}

/** An authId no credential of the run has: `[A-Za-z0-9_-]`, 1 to 32 characters. */
function arbUnknownAuthId(known: ReadonlySet<string>): fc.Arbitrary<string> {
  return fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/).filter((id) => !known.has(id));
}

/**
 * Sends `sample` once with a well-formed header of the unknown `authId` (signed with the
 * primary's key over the right query string) and once with the primary's authId and a wrong
 * signature, and asserts two 401s with the same JSON body by value (decisions §1 Revision 2).
 */
async function ensureSame401(ctx: CheckContext, sample: Sample, authId: string): Promise<void> {
  const qs = buildQueryString(sample.call.query ?? []);
  const { accessKey } = ctx.primary;
  const send = (authorization: string) =>
    ctx.call(sample.endpoint, { ...sample.call, credential: null, headers: { authorization } });
  const unknown = await send(authorizationHeader(authId, accessKey, qs));
  const wrong = await send(authorizationHeader(ctx.primary.authId, `${accessKey}-wrong`, qs));
  expectError(unknown, 401);
  expectError(wrong, 401);
  const a = parseJson(wrong);
  const b = parseJson(unknown);
  const d = firstDifference(a, b) ?? firstDifference(b, a);
  if (d !== undefined)
    throw new Violation(
      `${describe(unknown)} with the unknown authId ${JSON.stringify(authId)} answered the 401 body ${unknown.body.trim()}, but a wrong signature for the known authId ${ctx.primary.authId} answered ${wrong.body.trim()} (${d}): the body tells whether an authId exists`,
      { kind: 'value', exchange: unknown, expected: wrong.body, actual: unknown.body },
    );
}

/** The base URL could not be reached over a socket (e.g. an in-memory run). */
class NoSocket extends Error {
  override readonly name = 'NoSocket';
}

/**
 * Sends `GET url` over a socket with node:http(s), the header `name: value` written with
 * `name` in exactly the letter case given (a Fetch `Request` normalises header names, so only
 * a socket carries another case). Resolves the status; throws {@link NoSocket} when the host
 * cannot be reached (an in-memory base URL has none). Not paced and not recorded: the caller
 * sends a handful at most.
 */
function statusOverSocket(
  url: string,
  name: string,
  value: string,
  socket: {
    readonly headers: Readonly<Record<string, string>>;
    readonly tls?:
      | { readonly ca?: readonly string[]; readonly rejectUnauthorized: boolean }
      | undefined;
  },
  timeoutMs = 10_000,
) {
  return new Promise<number>((resolve, reject) => {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return reject(new NoSocket(`${u.protocol} is not HTTP`));
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      u,
      {
        method: 'GET',
        // the run's extra headers (`-H`, a gateway's key) too, and its TLS settings
        headers: { ...socket.headers, [name]: value },
        timeout: timeoutMs,
        ...(u.protocol === 'https:' && socket.tls !== undefined
          ? {
              rejectUnauthorized: socket.tls.rejectUnauthorized,
              ...(socket.tls.ca === undefined ? {} : { ca: [...socket.tls.ca] }),
            }
          : {}),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', (e) => reject(new NoSocket(e.message)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => reject(new NoSocket(e.message)));
    req.end();
  });
}

/** Authentication (decisions §1): every endpoint refuses missing, malformed and wrong credentials. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'AUTH-401-MISSING',
    title: 'every endpoint without an Authorization header answers 401',
    clause: 'decisions §1 (missing credentials: 401), §5',
    endpoints: [],
    async run(ctx) {
      await expect401(ctx, () => undefined);
    },
  }),
  defineCheck({
    id: 'AUTH-401-WRONG-KEY',
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
    id: 'AUTH-401-SAME-BODY',
    title:
      'an unknown authId and a wrong signature of a known authId answer 401 with the same body (no authId existence oracle)',
    clause: 'decisions §1 Revision 2 (unknown authId and wrong signature: the same 401 body)',
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
  defineCheck({
    id: 'AUTH-HEX-ANY-CASE',
    title: 'the hex signature is accepted in upper and in mixed case',
    clause: 'decisions §1 Revision 2 (the hex signature is compared case-insensitively)',
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
      'decisions §1 (signature over the query string in request order), §1 Revision 2 (every sent parameter is signed, next included)',
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
    clause:
      'decisions §1 (raw or percent-decoded form), §1 Revision 2 (PHP urldecode: + is a space)',
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
  defineCheck({
    id: 'AUTH-HEADER-FORMS',
    title:
      'the Authorization value is strict base64: the header of a valid signature without its = padding answers 401, with it 200',
    clause:
      'decisions §1 Revision 2 (base64 is strict, padding required; surrounding whitespace and the header name case are free to the client)',
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
    clause: 'decisions §1 Revision 2 (the header name is case-insensitive)',
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
        const status = await statusOverSocket(
          `${ctx.http.baseUrl}${plain.target}`,
          name,
          ctx.http.authorization(ctx.primary, qs),
          { headers: ctx.http.extraHeaders, tls: ctx.http.tlsConnect },
        );
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
