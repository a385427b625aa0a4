import { describe, expect, test } from 'vitest';
import { ConfigError, PreflightError } from '../src/run/runner.ts';
import { failing, profileFor, runInMemory } from './helpers.ts';

function others(result: Parameters<typeof failing>[0], id: string): string[] {
  return failing(result).filter((x) => x !== id);
}

/**
 * The paging end is a profile option (spec §5 Revision 2). A server that plainly took the
 * other option (both signs: the last page's nextURL and the answer past the end) is a
 * configuration error of the preflight naming `pagingEnd` (preflight.test.ts has the CLI's
 * side). A server showing one sign of the other option is a defect: it fails exactly the
 * paging-end requirement of the declared option; every other check reads either end as the
 * end of the list (no crash, no noise).
 */
describe('a paging end other than the declared one', () => {
  test.each([
    ['an empty-page server, a no-content profile', 'empty-page', 'no-content'],
    ['a no-content server, an empty-page profile', 'no-content', 'empty-page'],
  ] as const)(
    '%s: a configuration error naming pagingEnd, no check run',
    async (_name, server, declared) => {
      const error = await runInMemory(
        { pageSize: 40, pagingEnd: server },
        { profile: { ...profileFor({ pageSize: 40 }), pagingEnd: declared }, numRuns: 5 },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PreflightError);
      expect((error as PreflightError).cause).toBeInstanceOf(ConfigError);
      expect((error as PreflightError).message).toMatch(
        new RegExp(
          `^profile declares "pagingEnd": "${declared}", .*: set "pagingEnd": "${server}"$`,
        ),
      );
      expect((error as PreflightError).result.checks.every((c) => c.status === 'error')).toBe(true);
    },
  );

  test('204 past the end but nextURL null on the last page, profile empty-page: PAGE-END-EMPTY-PAGE fails', async () => {
    const result = await runInMemory(
      { pageSize: 40, faults: ['last-page-next-null'] },
      { profile: { ...profileFor({ pageSize: 40 }), pagingEnd: 'empty-page' }, numRuns: 5 },
    );
    expect(failing(result)).toContain('PAGE-END-EMPTY-PAGE');
    expect(others(result, 'PAGE-END-EMPTY-PAGE')).toEqual([]);
    const messages = result.checks.find((c) => c.id === 'PAGE-END-EMPTY-PAGE')!.failures;
    expect(messages.some((f) => /answered 204; in paging end empty-page/.test(f.message))).toBe(
      true,
    );
    expect(result.checks.find((c) => c.id === 'PAGE-END-NO-CONTENT')?.status).toBe('skip');
    expect(result.warnings?.[0]).toMatch(/profile declares "pagingEnd": "empty-page"; .*is null/);
  });

  test('200 data [] past the end but the last page links to cursor=total, profile no-content: PAGE-END-NO-CONTENT fails', async () => {
    const result = await runInMemory(
      { pageSize: 40, faults: ['no-content-as-empty-page'] },
      { profile: profileFor({ pageSize: 40 }), numRuns: 5 },
    );
    expect(failing(result)).toContain('PAGE-END-NO-CONTENT');
    expect(others(result, 'PAGE-END-NO-CONTENT')).toEqual([]);
    const failures = result.checks.find((c) => c.id === 'PAGE-END-NO-CONTENT')!.failures;
    expect(failures.map((f) => f.message).join('\n')).toMatch(/expected 204 No Content/);
  });

  test('nextURL null on the last page but 204 past the end, profile no-content: PAGE-END-NO-CONTENT fails', async () => {
    // what the other checks make of this fault's last page is the test above's (the same
    // fault under the other option): this one runs the requirement it judges
    const result = await runInMemory(
      { pageSize: 40, faults: ['last-page-next-null'] },
      { profile: profileFor({ pageSize: 40 }), numRuns: 5, only: 'PAGE-END-NO-CONTENT' },
    );
    expect(failing(result)).toContain('PAGE-END-NO-CONTENT');
    const failures = result.checks.find((c) => c.id === 'PAGE-END-NO-CONTENT')!.failures;
    expect(failures.map((f) => f.message).join('\n')).toMatch(/points at cursor=\d+ \(total\)/);
  });
});
