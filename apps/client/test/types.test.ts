import type { Contact, DailyCounts, QueryOf, StatsSummary, Tag, TeamMember } from '@tagtrack/core';
import { describe, expect, expectTypeOf, test } from 'vitest';
import {
  createClient,
  type ListPage,
  type MethodQuery,
  type TagListQuery,
  type TagtrackClient,
} from '../src/index.ts';
import { fakeFetch, json } from './fakes.ts';

/** A client whose requests never leave the process (every answer an empty page). */
function offlineClient(): TagtrackClient {
  const f = fakeFetch(() =>
    json({
      data: [],
      paging: { cursors: { previous: 0, next: 0, total: 0 }, previousURL: null, nextURL: null },
    }),
  );
  return createClient({ baseUrl: 'http://127.0.0.1:9', authId: 'a', accessKey: 'k', fetch: f });
}

/** Calls that must not compile; never run (the checks are the `@ts-expect-error` lines). */
function rejectedAtCompileTime(client: TagtrackClient): void {
  // @ts-expect-error isOpen is not a parameter of teams.list (a typo of isOpened)
  void client.teams.list({ isOpen: true });
  // @ts-expect-error date is not a parameter of stats.team
  void client.stats.team({ date: '2024-01-01' });
  // @ts-expect-error tags.daily requires the query with its date
  void client.tags.daily('t1');
  // @ts-expect-error tags.daily requires date in the query
  void client.tags.daily('t1', {});
  // @ts-expect-error the member id is a required path parameter
  void client.teams.member();
  // @ts-expect-error isOpened is a boolean, not a string
  void client.teams.tags({ isOpened: 'yes' });
  // @ts-expect-error rtn goes in the call options, not the query
  void client.contacts.list({ rtn: 'text' });
  // @ts-expect-error single-record endpoints have no page walk
  void client.contacts.get.all('c1');
}

/** The result types of calls; never run (checked by the type checker). */
function resultTypes(client: TagtrackClient): void {
  expectTypeOf(client.teams.tags()).toEqualTypeOf<Promise<ListPage<Tag>>>();
  expectTypeOf(client.teams.tags({}, { rtn: 'html' })).toEqualTypeOf<Promise<string>>();
  expectTypeOf(client.teams.tags.all()).toEqualTypeOf<AsyncGenerator<Tag, void, undefined>>();
  expectTypeOf(client.contacts.get('c1')).toEqualTypeOf<Promise<{ data: Contact }>>();
  expectTypeOf(client.tags.daily('t1', { date: '2024-01-05' })).toEqualTypeOf<
    Promise<{ data: DailyCounts }>
  >();
  expectTypeOf(client.stats.member.pages('m1')).toEqualTypeOf<
    AsyncGenerator<ListPage<StatsSummary>, void, undefined>
  >();
  expectTypeOf(client.teams.group('Sales', { type: 'user' })).toEqualTypeOf<
    Promise<ListPage<TeamMember>>
  >();
}

describe('the client type is derived from the catalogue', () => {
  test('method results carry the record types of the catalogue', () => {
    expect(typeof rejectedAtCompileTime).toBe('function');
    expect(typeof resultTypes).toBe('function');
  });

  test('arguments: path parameters in path order, then the query of the query schema', () => {
    const client = offlineClient();
    expectTypeOf(client.teams.memberTags.all).parameter(0).toEqualTypeOf<string>();
    expectTypeOf(client.teams.memberTags.all)
      .parameter(1)
      .toEqualTypeOf<MethodQuery<'teams.memberTags'> | undefined>();
    expectTypeOf<MethodQuery<'tags.daily'>>().toEqualTypeOf<Omit<QueryOf<'tags.daily'>, 'rtn'>>();
    expectTypeOf<TagListQuery>().toEqualTypeOf<MethodQuery<'teams.tags'>>();
  });

  test('the calls of the README compile and run', async () => {
    const client = offlineClient();
    const page = await client.teams.tags({ isOpened: true, start: '2024-01-01', cursor: 0 });
    expect(page.data).toEqual([]);
    const text: string = await client.contacts.list({ total: 0, next: '' }, { rtn: 'text' });
    expect(typeof text).toBe('string');
    const all: Contact[] = [];
    for await (const c of client.contacts.list.all()) all.push(c);
    expect(all).toEqual([]);
  });
});
