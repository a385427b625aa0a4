import { describe, expect, test } from 'vitest';
import { failing, profileFor, runInMemory } from './helpers.ts';

function others(result: Parameters<typeof failing>[0], id: string): string[] {
  return failing(result).filter((x) => x !== id);
}

/**
 * The paging end is a profile option (decisions §3 Revision 2). A server whose paging end
 * differs from the declared one fails exactly the paging-end requirement of the declared
 * option; every other check reads either end as the end of the list (no crash, no noise).
 */
describe('a paging end other than the declared one fails only the paging-end check', () => {
  test('204 past the end while the profile declares empty-page: PAGE-END-EMPTY-PAGE fails', async () => {
    const result = await runInMemory(
      { pageSize: 40 },
      { profile: { ...profileFor({ pageSize: 40 }), pagingEnd: 'empty-page' }, numRuns: 5 },
    );
    expect(failing(result)).toContain('PAGE-END-EMPTY-PAGE');
    expect(others(result, 'PAGE-END-EMPTY-PAGE')).toEqual([]);
    const messages = result.checks.find((c) => c.id === 'PAGE-END-EMPTY-PAGE')!.failures;
    expect(messages.some((f) => /answered 204; in paging end empty-page/.test(f.message))).toBe(
      true,
    );
    expect(result.checks.find((c) => c.id === 'PAGE-END-NO-CONTENT')?.status).toBe('skip');
  });

  test('200 data [] past the end while the profile declares no-content: PAGE-END-NO-CONTENT fails', async () => {
    const result = await runInMemory(
      { pageSize: 40, pagingEnd: 'empty-page' },
      { profile: { ...profileFor({ pageSize: 40 }), pagingEnd: 'no-content' }, numRuns: 5 },
    );
    expect(failing(result)).toContain('PAGE-END-NO-CONTENT');
    expect(others(result, 'PAGE-END-NO-CONTENT')).toEqual([]);
    const failures = result.checks.find((c) => c.id === 'PAGE-END-NO-CONTENT')!.failures;
    expect(failures.map((f) => f.message).join('\n')).toMatch(/expected 204 No Content/);
    expect(failures.map((f) => f.message).join('\n')).toMatch(/points at cursor=\d+ \(total\)/);
  });
});
