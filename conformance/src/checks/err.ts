import { ErrorBody, REASON_PHRASES } from '@tagtrack/core';
import { mediaType } from '../check/compare.ts';
import { type Check, defineCheck } from '../check/define.ts';
import { countComparison, describe, Violation } from '../check/failure.ts';
import type { Exchange } from '../http/client.ts';

/** Requirement id prefix of this file's checks (area `err`). */
export const prefix = 'ERR';

/**
 * Asserts `ex` is the documented error: `status`, a JSON {@link ErrorBody} with matching
 * `statusCode` and reason phrase, and (when given) a message naming one of `names`
 * (spec §6). Throws a {@link Violation}: kind `status` for another status, else as
 * {@link errorBodyProblem}, kind `format` for a message that names none of `names`.
 */
export function expectError(ex: Exchange, status: number, names: readonly string[] = []): void {
  if (ex.status !== status)
    throw new Violation(`${describe(ex)} answered ${ex.status}, expected ${status}`, {
      kind: 'status',
      exchange: ex,
      expected: status,
      actual: ex.status,
    });
  errorBodyProblem(ex);
  const message = (JSON.parse(ex.body) as ErrorBody).message;
  if (names.length > 0 && !names.some((n) => message.includes(n)))
    throw new Violation(
      `${describe(ex)}: error message ${JSON.stringify(message)} does not name ${names.map((n) => `'${n}'`).join(' or ')}`,
      { kind: 'format', exchange: ex },
    );
}

/**
 * Throws a {@link Violation} unless `ex` carries the error body of spec §6: kind
 * `header` for a Content-Type other than JSON, `schema` for a body that is not JSON or not
 * `{statusCode, error, message}`, `format` for a statusCode other than the HTTP status or an
 * error other than the status's reason phrase.
 */
export function errorBodyProblem(ex: Exchange): void {
  const ct = ex.responseHeaders['content-type'];
  // an error body's media type is judged, its charset is free
  if (mediaType(ct) !== 'application/json')
    throw new Violation(
      `${describe(ex)}: error Content-Type ${JSON.stringify(ct)}, expected application/json`,
      { kind: 'header', exchange: ex },
    );
  let body: unknown;
  try {
    body = JSON.parse(ex.body);
  } catch {
    throw new Violation(`${describe(ex)}: error body is not JSON: ${ex.body.slice(0, 100)}`, {
      kind: 'schema',
      exchange: ex,
    });
  }
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success)
    throw new Violation(
      `${describe(ex)}: error body is not {statusCode, error, message}: ${ex.body.slice(0, 100)}`,
      { kind: 'schema', exchange: ex },
    );
  if (parsed.data.statusCode !== ex.status)
    throw new Violation(
      `${describe(ex)}: error body statusCode ${parsed.data.statusCode}, HTTP status ${ex.status}`,
      { kind: 'format', exchange: ex },
    );
  const phrase = REASON_PHRASES[ex.status];
  if (phrase !== undefined && parsed.data.error !== phrase)
    throw new Violation(
      `${describe(ex)}: error ${JSON.stringify(parsed.data.error)}, expected the reason phrase ${JSON.stringify(phrase)}`,
      { kind: 'format', exchange: ex },
    );
  countComparison();
}

/** The error body (spec §6): one JSON shape for every error, whatever format was asked. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'ERR-BODY-JSON',
    title:
      'every error (400, 401, 404) is a JSON {statusCode, error, message} body, whatever rtn asked for',
    clause: 'spec §6',
    endpoints: ['teams.tags', 'teams.member', 'contacts.list'],
    async run(ctx) {
      for (const rtn of ['json', 'text', 'html'] as const) {
        const cases: [Promise<Exchange>, number][] = [
          [
            ctx.call('teams.tags', {
              query: [
                ['rtn', rtn],
                ['isOpened', 'maybe'],
              ],
            }),
            400,
          ],
          [
            ctx.call('teams.member', {
              pathParams: { memberID: 'zz0000unknown' },
              query: [['rtn', rtn]],
            }),
            404,
          ],
          [ctx.call('contacts.list', { query: [['rtn', rtn]], credential: null }), 401],
        ];
        await ctx.each(cases, async ([p, status]) => expectError(await p, status));
      }
    },
  }),
];
