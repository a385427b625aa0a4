import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  buildPath,
  ENDPOINT_IDS,
  ENDPOINT_LIST,
  type Endpoint,
  endpointById,
  envelopeSchema,
  matchEndpoint,
  type PathParamName,
} from '../src/endpoints.ts';

describe('the catalogue', () => {
  it('has 17 entries with distinct ids and paths covering the source numbers 1-17', () => {
    expect(ENDPOINT_LIST).toHaveLength(17);
    expect(ENDPOINT_LIST.map((e) => e.id)).toEqual([...ENDPOINT_IDS]);
    expect(new Set(ENDPOINT_LIST.map((e) => e.path)).size).toBe(17);
    const numbers = new Set(ENDPOINT_LIST.flatMap((e) => e.numbers));
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
  });

  it('lists the query parameters of the source tables plus rtn, cursor, total and next', () => {
    const q = (id: (typeof ENDPOINT_IDS)[number]) => [...endpointById(id).query].sort();
    const common = ['cursor', 'next', 'rtn', 'total'];
    expect(q('teams.list')).toEqual([...common, 'type'].sort());
    expect(q('teams.member')).toEqual(common);
    expect(q('teams.tags')).toEqual(
      [...common, 'start', 'end', 'isClicked', 'isUnclicked', 'isOpened', 'isUnopened'].sort(),
    );
    expect(q('stats.team')).toEqual([...common, 'start', 'end', 'aggregateData', 'type'].sort());
    expect(q('stats.teamAlias')).toEqual(q('stats.team'));
    expect(q('stats.member')).toEqual([...common, 'start', 'end', 'aggregateData'].sort());
    expect(q('clicks.list')).toEqual([...common, 'start', 'end'].sort());
    expect(q('tags.daily')).toEqual([...common, 'date'].sort());
    expect(endpointById('tags.daily').requiredQuery).toEqual(['date']);
    expect(ENDPOINT_LIST.filter((e) => e.response === 'single').map((e) => e.id)).toEqual([
      'teams.member',
      'tags.daily',
      'contacts.get',
    ]);
  });
});

const SAMPLE: Record<PathParamName, string> = {
  memberID: 'm0123456789abcdef0123456',
  group: 'Sales & Marketing/EU',
  tagID: 't-1',
  contactID: 'c_1',
};

describe('matchEndpoint', () => {
  it.each(ENDPOINT_LIST.map((e) => [e.path, e] as const))('matches %s', (_, e) => {
    const path = buildPath(e, SAMPLE);
    const match = matchEndpoint(path);
    expect(match?.endpoint.id).toBe(e.id);
    expect(match?.pathParams).toEqual(
      Object.fromEntries(e.pathParams.map((name) => [name, SAMPLE[name]])),
    );
  });

  it('decodes percent-encoded path parameters', () => {
    expect(matchEndpoint('/teams/group/Sales%20%26%20Marketing%2FEU')?.pathParams).toEqual({
      group: 'Sales & Marketing/EU',
    });
    expect(matchEndpoint('/teams/stats/group/%C3%A9quipe')?.pathParams).toEqual({
      group: 'équipe',
    });
  });

  it('prefers the literal path: /teams/stats and /teams/tags are not members or groups', () => {
    expect(matchEndpoint('/teams/stats')?.endpoint.id).toBe('stats.teamAlias');
    expect(matchEndpoint('/teams/tags')?.endpoint.id).toBe('teams.tags');
    expect(matchEndpoint('/stats')?.endpoint.id).toBe('stats.team');
    expect(matchEndpoint('/contacts/tag')?.endpoint.id).toBe('contacts.get');
  });

  it.each([
    '/',
    '',
    'teams',
    '/team',
    '/teams/',
    '/stats/',
    '/teams/member/',
    '/teams/member//tags',
    '/teams/member/m1/tags/',
    '/teams/member/m1/other',
    '/clicks/tag',
    '/tags/daily',
    '/contacts/a/b',
    '/Teams',
    '/teams/group/%E0%A4',
    '/openapi.json',
    '/teams/./tags',
    '/teams/../stats',
    '/%54eams',
  ])('%j is unknown (undefined)', (path) => {
    expect(matchEndpoint(path)).toBeUndefined();
  });

  it('percent-decodes every segment before matching (spec §6 Revision 2)', () => {
    expect(matchEndpoint('/%74eams')?.endpoint.id).toBe('teams.list');
    expect(matchEndpoint('/teams/%74ags')?.endpoint.id).toBe('teams.tags');
    expect(matchEndpoint('/%73tats')?.endpoint.id).toBe('stats.team');
    expect(matchEndpoint('/teams/member/%2E%2E/tags')?.pathParams).toEqual({ memberID: '..' });
  });
});

const arbSegment = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
const arbParams = fc.record({
  memberID: arbSegment,
  group: arbSegment,
  tagID: arbSegment,
  contactID: arbSegment,
});

describe('buildPath', () => {
  fcTest.prop([fc.constantFrom(...ENDPOINT_LIST), arbParams])(
    'matchEndpoint(buildPath(e, params)) gives back e and the params it uses',
    (e: Endpoint, params) => {
      const match = matchEndpoint(buildPath(e, params));
      expect(match?.endpoint.id).toBe(e.id);
      expect(match?.pathParams).toEqual(
        Object.fromEntries(e.pathParams.map((name) => [name, params[name]])),
      );
    },
  );

  fcTest.prop([fc.constantFrom(...ENDPOINT_LIST).filter((e) => e.pathParams.length === 0)])(
    'buildPath of an endpoint without placeholders is its path',
    (e) => {
      expect(buildPath(e)).toBe(e.path);
    },
  );

  it('throws naming a missing path parameter', () => {
    expect(() => buildPath(endpointById('contacts.get'))).toThrow(
      "path parameter 'contactID' is required by /contacts/{contactID}",
    );
  });
});

describe('envelopeSchema', () => {
  it('is one shared object per record schema and response kind', () => {
    const tags = envelopeSchema(endpointById('teams.tags'));
    expect(envelopeSchema(endpointById('teams.memberTags'))).toBe(tags);
    expect(envelopeSchema(endpointById('teams.tags'))).toBe(tags);
    // same record (TeamMember) but single vs list: different envelopes
    expect(envelopeSchema(endpointById('teams.member'))).not.toBe(
      envelopeSchema(endpointById('teams.list')),
    );
  });

  it('accepts the list and single envelopes of spec §5 and rejects a bare record', () => {
    const member = {
      memberID: 'a1',
      firstname: 'A',
      lastname: 'B',
      email: 'a@example.com',
      accountType: 'user',
    };
    const paging = {
      cursors: { previous: 0, next: 1, total: 1 },
      previousURL: null,
      nextURL: null,
    };
    expect(
      envelopeSchema(endpointById('teams.list')).safeParse({ data: [member], paging }).success,
    ).toBe(true);
    expect(envelopeSchema(endpointById('teams.member')).safeParse({ data: member }).success).toBe(
      true,
    );
    expect(envelopeSchema(endpointById('teams.member')).safeParse(member).success).toBe(false);
    expect(envelopeSchema(endpointById('teams.list')).safeParse({ data: [member] }).success).toBe(
      false,
    );
  });
});
