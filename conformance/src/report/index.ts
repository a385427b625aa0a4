import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../run/runner.ts';
import { toHtml } from './html.ts';
import { toResultsJson } from './json.ts';
import { toJUnit } from './junit.ts';
import { type MarkdownOptions, toMarkdown } from './markdown.ts';

export { formatSummary, isFancy, progressReporter, useColor } from './console.ts';
export { type Har, type HarEntry, redactHeaders, toHar, writeHar } from './har.ts';
export { rerunCommand, toHtml } from './html.ts';
export { ResultsJson, toResultsJson } from './json.ts';
export { junitProperties, junitTimestamp, toJUnit } from './junit.ts';
export {
  MARKDOWN_MAX_CHARS,
  type MarkdownOptions,
  mdCode,
  mdText,
  toMarkdown,
} from './markdown.ts';
export { failureText, redactCurl } from './text.ts';
export {
  type Counts,
  countsOf,
  failedChecks,
  isExpectedFailure,
  type SkipGroup,
  type SkipGroupKey,
  skipGroupOf,
  skipGroups,
  type Verdict,
  verdictOf,
} from './verdict.ts';

/**
 * Writes results.json, junit.xml, report.html and summary.md (the Markdown summary,
 * {@link toMarkdown} with `markdown` options) into `dir` (created); returns their paths.
 */
export async function writeReports(
  result: RunResult,
  dir: string,
  markdown: MarkdownOptions = {},
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ['results.json', `${JSON.stringify(toResultsJson(result), null, 2)}\n`],
    ['junit.xml', toJUnit(result)],
    ['report.html', toHtml(result)],
    ['summary.md', toMarkdown(result, markdown)],
  ];
  const paths: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    await writeFile(path, text);
    paths.push(path);
  }
  return paths;
}
