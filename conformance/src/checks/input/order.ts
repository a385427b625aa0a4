import type { EndpointId } from '@tagtrack/core';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import type { Pair } from '../../check/sample.ts';
import type { Exchange } from '../../http/client.ts';
import { expectError } from '../err.ts';

const UNKNOWN_ID = 'zz0000unknown0000id00zz';

/** One request of the order-of-checks matrix and the status the first failing step gives. */
interface OrderCase {
  /** Which two problems the request has, and which one must answer, in domain words. */
  readonly what: string;
  readonly status: 404 | 401 | 400;
  send(method: 'GET' | 'HEAD'): Promise<Exchange>;
}

/**
 * The order of checks for a bad request (spec §5 Revision 2): unknown path 404 -> method
 * 405 -> auth 401 -> rate 429 -> parameters 400 -> unknown or out-of-scope id 404. Read-only:
 * GET and HEAD requests with two problems each, the earlier step answering.
 */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-ORDER-OF-CHECKS',
    title:
      'a request with two problems answers the earlier step: unknown path before credentials, credentials before parameters, parameters before the unknown id',
    clause:
      'spec §5 Revision 2 (order of checks: unknown path 404 -> method 405 -> auth 401 -> rate 429 -> parameters 400 -> unknown id 404)',
    endpoints: ['teams.tags', 'teams.member', 'tags.daily', 'contacts.get'],
    async run(ctx) {
      const wrongKey = {
        ...ctx.primary,
        label: `${ctx.primary.label} with a wrong key`,
        accessKey: `${ctx.primary.accessKey}-wrong`,
      };
      const call =
        (endpoint: EndpointId, query: Pair[], credential: typeof wrongKey | null, id?: string) =>
        (method: 'GET' | 'HEAD') =>
          ctx.call(endpoint, {
            method,
            query,
            credential,
            ...(id === undefined
              ? {}
              : {
                  pathParams:
                    endpoint === 'tags.daily'
                      ? { tagID: id }
                      : endpoint === 'contacts.get'
                        ? { contactID: id }
                        : { memberID: id },
                }),
          });
      const cases: OrderCase[] = [
        {
          what: 'an unknown path without credentials: 404 before 401',
          status: 404,
          send: (method) => ctx.raw({ method, path: '/nothing-here', credential: null }),
        },
        {
          what: 'an unknown path with a bad parameter and a wrong signature: 404 before 401 and 400',
          status: 404,
          send: (method) =>
            ctx.raw({
              method,
              path: '/teams/nothing-here',
              query: [['isOpened', 'maybe']],
              credential: wrongKey,
            }),
        },
        {
          what: 'a bad parameter without credentials: 401 before 400',
          status: 401,
          send: call('teams.tags', [['isOpened', 'maybe']], null),
        },
        {
          what: 'an unknown parameter with a wrong signature: 401 before 400',
          status: 401,
          send: call('teams.tags', [['isOpen', 'true']], wrongKey),
        },
        {
          what: 'a bad cursor on an unknown id with a wrong signature: 401 before 400 and 404',
          status: 401,
          send: call('teams.member', [['cursor', 'abc']], wrongKey, UNKNOWN_ID),
        },
        {
          what: 'a bad date on an unknown tag: 400 before 404',
          status: 400,
          send: call('tags.daily', [['date', '2024-02-30']], ctx.primary, UNKNOWN_ID),
        },
        {
          what: 'a missing date on an unknown tag: 400 before 404',
          status: 400,
          send: call('tags.daily', [], ctx.primary, UNKNOWN_ID),
        },
        {
          what: 'a bad rtn on an unknown member: 400 before 404',
          status: 400,
          send: call('teams.member', [['rtn', 'JSON']], ctx.primary, UNKNOWN_ID),
        },
        {
          what: 'an unknown parameter on an unknown contact: 400 before 404',
          status: 400,
          send: call('contacts.get', [['isOpened', 'true']], ctx.primary, UNKNOWN_ID),
        },
      ];
      await ctx.each(
        cases.flatMap((c) => (['GET', 'HEAD'] as const).map((method) => ({ c, method }))),
        async ({ c, method }) => {
          const ex = await c.send(method);
          if (ex.status !== c.status)
            throw new Violation(
              `${describe(ex)} answered ${ex.status}, expected ${c.status} (${c.what})`,
              { kind: 'status', exchange: ex, expected: c.status, actual: ex.status },
            );
          if (method === 'GET') expectError(ex, c.status);
        },
      );
    },
  }),
];
