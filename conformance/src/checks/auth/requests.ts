import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { authorizationHeader, buildQueryString } from '@tagtrack/core';
import fc from 'fast-check';
import type { CheckContext } from '../../check/context.ts';
import { describe, Violation } from '../../check/failure.ts';
import { differenceEitherWay, type Sample, sampleCalls } from '../../check/sample.ts';
import { parseJson } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';
import { expectError } from '../err.ts';

/** Helpers of the `auth` checks: encodings, raw requests, 401 expectations. */

export function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

export const hmacOnly = (env: { profile: { auth: string } }) =>
  env.profile.auth === 'hmac-sha1' ? undefined : `the profile's auth scheme is ${env.profile.auth}`;

/**
 * PHP's `urldecode` of a query string (spec §3 Revision 2): `+` is a space, each valid
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
export async function sendRawQuery(
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
export async function expect401(
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
export function arbUnknownAuthId(known: ReadonlySet<string>): fc.Arbitrary<string> {
  return fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/).filter((id) => !known.has(id));
}

/**
 * Sends `sample` once with a well-formed header of the unknown `authId` (signed with the
 * primary's key over the right query string) and once with the primary's authId and a wrong
 * signature, and asserts two 401s with the same JSON body by value (spec §3 Revision 2).
 */
export async function ensureSame401(
  ctx: CheckContext,
  sample: Sample,
  authId: string,
): Promise<void> {
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
  const d = differenceEitherWay(a, b);
  if (d !== undefined)
    throw new Violation(
      `${describe(unknown)} with the unknown authId ${JSON.stringify(authId)} answered the 401 body ${unknown.body.trim()}, but a wrong signature for the known authId ${ctx.primary.authId} answered ${wrong.body.trim()} (${d}): the body tells whether an authId exists`,
      { kind: 'value', exchange: unknown, expected: wrong.body, actual: unknown.body },
    );
}

/** The base URL could not be reached over a socket (e.g. an in-memory run). */
export class NoSocket extends Error {
  override readonly name = 'NoSocket';
}

/**
 * Sends `GET url` over a socket with node:http(s), the header `name: value` written with
 * `name` in exactly the letter case given (a Fetch `Request` normalises header names, so only
 * a socket carries another case). Resolves the status; throws {@link NoSocket} when the host
 * cannot be reached (an in-memory base URL has none). Not paced and not recorded: the caller
 * sends a handful at most.
 */
export function statusOverSocket(
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
