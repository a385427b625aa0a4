import { canonicalPath, hmacAuthorizer, signRequest } from '@tagtrack/core';
import { createServer, type ServerOptions, type VariantName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { otherSpelling } from '../src/checks/page/links.ts';
import { pagingUrlProblem } from '../src/checks/page/lists.ts';
import type { Exchange } from '../src/http/client.ts';
import { runConformance } from '../src/run/runner.ts';
import { problems } from './fault-matrix.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';
import { REVISION_3_DATASET } from './revision3-dataset.ts';

/**
 * Rules of profile Revision 3 (spec §5, §9) on the data that exercises them: the reference
 * server, and its variants of the freedoms those rules declare, pass the checks of those
 * rules on the canonical dataset and on the canonical dataset with the Revision 3 cases
 * (`withRevision3Cases`: two tags sent at the same second, a recipient listed twice with
 * events), in fixture mode and in blind mode with one admin credential. (The faults of those
 * rules are in the fault matrix, faults-N.test.ts.)
 */

/** The checks of the Revision 3 rules of §3 and §8. */
const REVISION_3_CHECKS = [
  'PAGE-ORDER-TAGS',
  'PAGE-ORDER-EVENTS',
  'PAGE-URLS-KEEP-QUERY',
  'PAGE-HEADERS',
  'PAGE-WALK-NEXT-URL',
  'REL-EVENT-RECIPIENT',
  'REL-CONTACT-IDS-CONSISTENT',
  'REL-FORMATS-AGREE',
  'ORACLE-EVENTS',
  'ORACLE-TAGS',
].join(',');

/** Runs the Revision 3 checks against a reference server with `options`, in `mode`. */
async function runRevision3(options: ServerOptions, mode: 'fixture' | 'blind') {
  const server = createServer({ publicUrl: MEMORY_BASE_URL, ...options });
  try {
    return await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: (r) => server.fetch(r),
      profile:
        mode === 'fixture' ? profileFor(options) : { ...profileFor(options), credentials: [] },
      mode,
      seed: 7,
      numRuns: 3,
      only: REVISION_3_CHECKS,
      ...(options.dataset === undefined ? {} : { dataset: options.dataset }),
      ...(mode === 'blind' ? { authId: team1Admin.authId, accessKey: team1Admin.accessKey } : {}),
    });
  } finally {
    await server.close();
  }
}

describe('Revision 3 rules of §3 and §8: the reference and the variants of their freedoms pass', () => {
  const cases: [string, ServerOptions][] = [
    ['the reference, canonical dataset', {}],
    ['the reference, Revision 3 cases', { dataset: REVISION_3_DATASET }],
    ['the reference, Revision 3 cases, page size 7', { dataset: REVISION_3_DATASET, pageSize: 7 }],
    ...(
      [
        'event-recipient-email-stored',
        'event-recipient-email-as-sent',
        'paging-path-canonical',
      ] as VariantName[]
    ).map((v): [string, ServerOptions] => [
      `variant ${v}, Revision 3 cases`,
      { dataset: REVISION_3_DATASET, variants: [v] },
    ]),
  ];
  test.each(cases)('%s passes in fixture and blind mode', async (_name, options) => {
    const runs = await Promise.all(
      (['fixture', 'blind'] as const).map((mode) => runRevision3(options, mode)),
    );
    expect(runs.flatMap((r) => problems(r).map((p) => `${r.mode}: ${p}`))).toEqual([]);
    // the checks judged something: none skipped for want of data (the oracle is fixture-only)
    for (const r of runs)
      expect(
        r.checks
          .filter((c) => c.status === 'skip' && !(r.mode === 'blind' && c.id.startsWith('ORACLE-')))
          .map((c) => `${r.mode}: ${c.id} ${c.reason}`),
      ).toEqual([]);
  });

  test('the variants of the recipient email really change the email shown', async () => {
    const emails = async (variants: VariantName[]) => {
      const server = createServer({ dataset: REVISION_3_DATASET, variants });
      const signed = signRequest(
        { baseUrl: MEMORY_BASE_URL, path: '/opens' },
        hmacAuthorizer(team1Admin.authId, team1Admin.accessKey),
      );
      const res = await server.fetch(
        new Request(signed.url, { headers: { authorization: signed.authorization ?? '' } }),
      );
      const body = (await res.json()) as {
        data: { opens: { recipient: { email: string } }[] }[];
      };
      await server.close();
      return body.data.flatMap((g) => g.opens.map((o) => o.recipient.email));
    };
    const normalised = await emails([]);
    expect(normalised.every((e) => e === e.trim().toLowerCase())).toBe(true);
    for (const v of ['event-recipient-email-stored', 'event-recipient-email-as-sent'] as const) {
      const shown = await emails([v]);
      expect(shown).toHaveLength(normalised.length);
      expect(shown.some((e, i) => e !== normalised[i])).toBe(true);
      expect(shown.map((e) => e.trim().toLowerCase())).toEqual(normalised);
    }
  });
});

test('variant paging-path-canonical links /%74eams/tags to /teams/tags, the reference to the path as received', async () => {
  const nextOf = async (variants: VariantName[]) => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL, pageSize: 5, variants });
    const signed = signRequest(
      { baseUrl: MEMORY_BASE_URL, path: '/teams/tags' },
      hmacAuthorizer(team1Admin.authId, team1Admin.accessKey),
    );
    const res = await server.fetch(
      new Request(`${MEMORY_BASE_URL}/%74eams/tags`, {
        headers: { authorization: signed.authorization ?? '' },
      }),
    );
    await server.close();
    return ((await res.json()) as { paging: { nextURL: string } }).paging.nextURL;
  };
  expect(await nextOf([])).toBe(`${MEMORY_BASE_URL}/%74eams/tags?cursor=5`);
  expect(await nextOf(['paging-path-canonical'])).toBe(`${MEMORY_BASE_URL}/teams/tags?cursor=5`);
});

/** An exchange that sent `target` (path and raw query) to `base`. */
function sent(base: string, target: string): Exchange {
  return {
    id: 1,
    method: 'GET',
    url: `${base}${target}`,
    target,
    credential: 'team1-admin',
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    body: '',
    bodyBytes: 0,
    durationMs: 0,
  };
}

describe('the path of a paging URL is judged by meaning (spec §5 Revision 3)', () => {
  const BASE = 'https://api.example.com/v1';

  test('canonicalPath decodes and re-encodes each segment; %2F stays inside its segment', () => {
    expect(canonicalPath('/%74eams/tags')).toBe('/teams/tags');
    expect(canonicalPath('/teams/group/Key Accounts')).toBe('/teams/group/Key%20Accounts');
    expect(canonicalPath('/teams/group/%c3%89quipe')).toBe('/teams/group/%C3%89quipe');
    expect(canonicalPath('/teams/group/a%2Fb')).not.toBe(canonicalPath('/teams/group/a/b'));
    expect(canonicalPath('/teams/group/%zz')).toBe('/teams/group/%zz');
  });

  test('otherSpelling escapes the first letter and lower-cases the other escapes', () => {
    expect(otherSpelling('/teams/tags')).toBe('/%74eams/tags');
    expect(otherSpelling('/teams/group/%C3%89quipe%20A')).toBe('/%74eams/group/%c3%89quipe%20A');
    expect(canonicalPath(otherSpelling('/teams/group/Key%20Accounts'))).toBe(
      '/teams/group/Key%20Accounts',
    );
  });

  test.each([
    ['/%74eams/tags', '/%74eams/tags'],
    ['/%74eams/tags', '/teams/tags'],
    ['/teams/group/Key%20Accounts', '/teams/group/Key%20Accounts'],
    ['/%74eams/group/Key%20Accounts', '/teams/group/Key%20Accounts'],
    ['/teams/group/%c3%89quipe', '/teams/group/%C3%89quipe'],
  ])('a request to %s may link to %s (as received or canonical)', (path, linked) => {
    const request = sent(BASE, `${path}?cursor=1`);
    expect(pagingUrlProblem(`${BASE}${linked}?cursor=41`, BASE, request, 41)).toBeUndefined();
  });

  test.each([
    ['/teams/group/Key%20Accounts', '/teams/group/key%20accounts'],
    ['/teams/group/a%2Fb', '/teams/group/a/b'],
    ['/%74eams/tags', '/teams'],
    ['/teams/member/abc/tags', '/teams/tags'],
  ])('a request to %s may not link to %s (another endpoint or resource)', (path, linked) => {
    const request = sent(BASE, `${path}?cursor=1`);
    expect(pagingUrlProblem(`${BASE}${linked}?cursor=41`, BASE, request, 41)).toMatch(
      /has the path/,
    );
  });
});
