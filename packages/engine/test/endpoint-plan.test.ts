import {
  type Answer,
  type Caller,
  COMMON_PARAMS,
  contactIdOf,
  defaultQueryParams,
  ENDPOINT_LIST,
  ENDPOINT_PLAN,
  type Endpoint,
  type EndpointId,
  type EndpointRequest,
  plainAnswer,
  RULE_NAMES,
  type RuleName,
  SUBJECT_PARAM,
} from '@tagtrack/core';
import { INDEX_RULES, PLAIN_RULES } from '@tagtrack/core/internal';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';
import { openSqlEngine, SQL_RULES, type SqlEngine } from '../src/sql/engine.ts';

/*
 * One endpoint plan (core's ENDPOINT_PLAN) drives the three answerers: the in-memory index's
 * dispatch (INDEX_RULES), the plain rules (PLAIN_RULES, plainAnswer) and the SQL engine
 * (SQL_RULES). These tests say that the plan covers every endpoint of the catalogue as the
 * catalogue describes it, that every answerer implements every rule the plan names, and that
 * the three answer every endpoint alike on the canonical dataset.
 */

/** The three answerers' rule sets, by name. */
const ANSWERERS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'in-memory index': INDEX_RULES,
  'plain rules': PLAIN_RULES,
  'SQL engine': SQL_RULES,
};

/** The endpoints whose plan names a rule `rules` does not implement (or no plan at all). */
function uncovered(rules: Readonly<Record<string, unknown>>): EndpointId[] {
  return ENDPOINT_LIST.filter((e) => {
    const plan = (ENDPOINT_PLAN as Partial<Record<string, { rule: RuleName }>>)[e.id];
    return plan === undefined || typeof rules[plan.rule] !== 'function';
  }).map((e) => e.id);
}

/** The endpoint's own query parameters: the catalogue's, without the common ones. */
function ownParams(e: Endpoint): string[] {
  return e.query.filter((p) => !COMMON_PARAMS.includes(p));
}

describe('the endpoint plan', () => {
  test.each(ENDPOINT_LIST.map((e) => [e.id, e] as const))(
    '%s: planned as the catalogue describes it (response, parameters, path subject)',
    (id, e) => {
      const plan = ENDPOINT_PLAN[id];
      expect(plan, id).toBeDefined();
      expect(plan.response).toBe(e.response);
      expect([...plan.params]).toEqual(ownParams(e));
      expect(plan.window === 'none').toBe(e.response === 'single');
      if (plan.subject === undefined) expect(e.pathParams).toEqual([]);
      else expect(e.pathParams).toEqual([SUBJECT_PARAM[plan.subject]]);
      expect(RULE_NAMES).toContain(plan.rule);
    },
  );

  test('plans no endpoint the catalogue lacks, and uses every rule', () => {
    expect(Object.keys(ENDPOINT_PLAN).sort()).toEqual(ENDPOINT_LIST.map((e) => e.id).sort());
    expect(new Set(Object.values(ENDPOINT_PLAN).map((p) => p.rule))).toEqual(new Set(RULE_NAMES));
  });

  test.each(Object.entries(ANSWERERS))(
    'the %s implements every rule the plan names, and no other',
    (_name, rules) => {
      expect(uncovered(rules)).toEqual([]);
      expect(Object.keys(rules).sort()).toEqual([...RULE_NAMES].sort());
    },
  );

  test('an answerer missing a rule leaves the endpoints of that rule uncovered', () => {
    const { contacts: _contacts, ...withoutContacts } = PLAIN_RULES;
    expect(uncovered(withoutContacts)).toEqual(['contacts.list', 'contacts.tag']);
  });
});

describe('the three answerers agree on every endpoint (canonical dataset)', () => {
  const index = buildIndex(canonicalDataset);
  const team = canonicalDataset.teams[0]!;
  const admin = team.members.find((m) => m.accountType === 'admin')!;
  const caller: Caller = { memberID: admin.memberID, teamID: team.teamID, accountType: 'admin' };
  const tag = index.tags(caller, {})!.find((t) => t.stats.totalOpens > 0)!;
  const group = team.groups[0]!;
  const pathParams = {
    memberID: admin.memberID,
    tagID: tag.tagID,
    group: group.groupID,
    contactID: contactIdOf(tag.recipients[0]!.email),
  };
  const requestOf = (e: Endpoint): EndpointRequest => ({
    endpoint: e.id,
    pathParams: Object.fromEntries(e.pathParams.map((p) => [p, pathParams[p]])),
    query: defaultQueryParams(
      e.requiredQuery.includes('date') ? { date: tag.dateSent.slice(0, 10) } : {},
    ),
  });
  let sql: SqlEngine;
  beforeAll(async () => {
    sql = await openSqlEngine({ load: canonicalDataset });
  }, 120_000);
  afterAll(async () => {
    await sql?.close();
  });

  test.each(ENDPOINT_LIST.map((e) => [e.id, e] as const))(
    '%s: index = plain rules = SQL, and found',
    async (_id, e) => {
      const request = requestOf(e);
      const expected: Answer = plainAnswer(canonicalDataset, caller, request);
      expect(expected.kind).toBe(e.response);
      expect(index.answer(caller, request)).toEqual(expected);
      expect(JSON.parse(JSON.stringify(await sql.answer(caller, request)))).toEqual(
        JSON.parse(JSON.stringify(expected)),
      );
    },
    60_000,
  );
});
