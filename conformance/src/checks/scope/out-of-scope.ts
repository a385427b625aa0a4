import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { expectError } from '../err.ts';

import {
  bodyWithoutId,
  eachOutOfScope,
  ID_ENDPOINTS,
  judgedDeclared,
  needsTwoScopes,
  unknownIdLike,
  visibleOnce,
} from './visibility.ts';

/** Ids out of the caller's scope (spec §4): answered 404, exactly as an unknown id. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'SCOPE-404-OUT-OF-SCOPE',
    title: 'ids another caller can see but this one cannot answer 404, exactly like unknown ids',
    clause: 'spec §4 (an id outside the caller’s scope answers 404: no existence oracle)',
    endpoints: ID_ENDPOINTS,
    skipIf: needsTwoScopes,
    async run(ctx) {
      const creds = await judgedDeclared(ctx);
      await eachOutOfScope(ctx, creds, async (c, { call: [endpoint, pathParams, query] }) =>
        expectError(await ctx.call(endpoint, { pathParams, query, credential: c }), 404),
      );
    },
  }),
  defineCheck({
    id: 'SCOPE-404-SAME-AS-UNKNOWN',
    title:
      'the 404 of an id outside the scope is the 404 of an unknown id, message included, only the echoed id differing',
    clause:
      'spec §4 Revision 2 (the 404 of an out-of-scope id is identical to the 404 of an unknown id)',
    endpoints: ID_ENDPOINTS,
    skipIf: needsTwoScopes,
    async run(ctx) {
      const creds = await judgedDeclared(ctx);
      const known = new Set<string>();
      const view = visibleOnce(ctx);
      for (const c of creds) {
        const v = await view(c);
        for (const id of [...v.members, ...v.tags.keys(), ...v.contacts.values()]) known.add(id);
        for (const g of v.groups) known.add(g.groupID).add(g.groupName);
      }
      let compared = 0;
      await eachOutOfScope(
        ctx,
        creds,
        async (c, { id, call: [endpoint, pathParams, query] }) => {
          const unknown = unknownIdLike(id, known);
          const unknownParams = Object.fromEntries(
            Object.entries(pathParams).map(([k, v]) => [k, v === id ? unknown : v]),
          );
          const hidden = await ctx.call(endpoint, { pathParams, query, credential: c });
          const absent = await ctx.call(endpoint, {
            pathParams: unknownParams,
            query,
            credential: c,
          });
          compared++;
          ctx.compared();
          if (hidden.status !== absent.status)
            throw new Violation(
              `${describe(hidden)} answered ${hidden.status}, but the unknown id ${unknown} (${describe(absent)}) answered ${absent.status}: the status tells an out-of-scope id from an unknown one`,
              {
                kind: 'status',
                exchange: hidden,
                expected: absent.status,
                actual: hidden.status,
              },
            );
          const a = bodyWithoutId(hidden.body, id);
          const b = bodyWithoutId(absent.body, unknown);
          if (a !== b)
            throw new Violation(
              `${describe(hidden)}: the 404 of id ${id}, outside the caller's scope, differs from the 404 of the unknown id ${unknown} (${describe(absent)}) beyond the echoed id, so it tells that the id exists`,
              { kind: 'format', exchange: hidden, expected: b, actual: a },
            );
        },
        view,
      );
      if (compared === 0) ctx.skip('no declared credential sees an id another one cannot');
    },
  }),
];
