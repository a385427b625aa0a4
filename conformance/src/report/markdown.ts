import { rerunNote } from '../http/rerun.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';
import { rerunCommand } from './html.ts';
import { failedChecks, isExpectedFailure, skipGroups, verdictOf } from './verdict.ts';
import { VERSION } from './version.ts';

/**
 * Characters at most in the Markdown summary: under GitHub's 65,536 for a pull-request
 * comment (and far under the 1 MiB of `$GITHUB_STEP_SUMMARY`), with room for a header
 * a workflow adds. Past it, entries are left out and a line says how many.
 */
export const MARKDOWN_MAX_CHARS = 60_000;

/** Characters of a failure message in the summary; the rest is in report.html. */
export const MARKDOWN_MESSAGE_CHARS = 400;

/**
 * Text for Markdown prose: HTML-significant characters as entities (a server's answer may
 * hold markup, and GitHub renders some HTML), Markdown's inline marks backslash-escaped,
 * line breaks as spaces.
 */
export function mdText(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(/[\\`*_[\]|~]/g, '\\$&')
    .replace(/\s*\r?\n\s*/g, ' ');
}

/** A Markdown code span holding `text` as it is (a fence longer than any run of backticks in it). */
export function mdCode(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** A base URL without user and password (a URL may carry them; a summary never does). */
function withoutUserinfo(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** One failing (or expected-failure, or stale) requirement: its first failure and the commands. */
function checkEntry(c: CheckResult, result: RunResult, stale: boolean): string {
  const first = c.failures[0];
  const n = c.failures.reduce((k, f) => k + 1 + (f.kind === 'summary' ? 0 : (f.repeats ?? 0)), 0);
  const head = `- **${mdCode(c.id)}** ${mdText(c.title)} (${mdText(c.clause)})${
    stale ? ': listed in the expected-failures file but passed; remove the entry' : ''
  }${c.status === 'error' ? ': error' : n > 1 ? `: ${n} failures` : ''}${
    isExpectedFailure(c) && c.expectedFailure ? `. Expected: ${mdText(c.expectedFailure)}` : ''
  }`;
  const lines = [head];
  if (c.status === 'error')
    lines.push(`  - ${mdText(cut(c.reason ?? 'error', MARKDOWN_MESSAGE_CHARS))}`);
  if (first !== undefined) {
    lines.push(`  - [${first.kind}] ${mdText(cut(first.message, MARKDOWN_MESSAGE_CHARS))}`);
    if (first.reproduce !== undefined) lines.push(`  - reproduce: ${mdCode(first.reproduce)}`);
  }
  if (!stale) lines.push(`  - run it again: ${mdCode(rerunCommand(safeRun(result), c.id))}`);
  return lines.join('\n');
}

const safeRun = (result: RunResult): RunResult => ({
  ...result,
  baseUrl: withoutUserinfo(result.baseUrl),
});

/** Options of {@link toMarkdown}. */
export interface MarkdownOptions {
  /** Characters at most (default {@link MARKDOWN_MAX_CHARS}). */
  readonly maxChars?: number | undefined;
  /**
   * Secrets to keep out whatever a message holds (the run's own access key, e.g. given with
   * `--access-key`): each is replaced by `<redacted>`. The profile's access keys always are.
   */
  readonly secrets?: readonly (string | undefined)[] | undefined;
}

/**
 * The run as Markdown, for a pull-request comment or `$GITHUB_STEP_SUMMARY` (the CLI writes
 * it as `summary.md` in `--report-dir` and to `--report-md FILE`): a heading with the
 * verdict ({@link verdictOf}), what was not checked, the counts table (expected failures
 * apart from failures), the run's facts; then the failing requirements, each with its first
 * failure in domain words, the `tagtrack-conformance request` line that reproduces it and
 * the command that runs the check again; then stale entries, expected failures, inconclusive
 * checks, and the skipped checks grouped by reason. At most `maxChars` characters: past it
 * the remaining entries are left out and a line `… N more` says how many (report.html and
 * results.json have them all). No secret: credentials are named by label (the reproduce
 * lines sign when run), a base URL loses its user and password, and every access key the
 * profile or `secrets` holds is replaced by `<redacted>` wherever it would appear. Text from
 * the implementation is escaped ({@link mdText}, {@link mdCode}).
 */
export function toMarkdown(result: RunResult, options: MarkdownOptions = {}): string {
  const max = options.maxChars ?? MARKDOWN_MAX_CHARS;
  const v = verdictOf(result);
  const n = v.counts;
  const failing = failedChecks(result);
  const head: string[] = [
    `## tagtrack conformance: ${v.label}`,
    '',
    `${v.tone === 'pass' ? '✅' : v.tone === 'partial' ? '⚠️' : '❌'} **${mdText(v.label)}**${v.judged === undefined ? '' : ` under ${mdText(v.judged)}`}${
      result.ok
        ? ''
        : `: ${[
            ...(result.configError === undefined
              ? []
              : [`configuration error, no check ran: ${mdText(result.configError)}`]),
            ...(failing.length > 0 && result.configError === undefined
              ? [`${failing.length} of ${n.total} checks did not pass`]
              : []),
            ...(result.interrupted === undefined
              ? []
              : [`the run was interrupted: ${mdText(result.interrupted)}`]),
            ...(result.gateFailures ?? []).map((g) => `policy ${mdText(g)}`),
          ].join('; ')}`
    }`,
  ];
  if (v.notChecked !== undefined) head.push('', `**Not checked:** ${mdText(v.notChecked)}.`);
  head.push(
    '',
    `| passed | failed | errors | expected failures | inconclusive | skipped | checks |`,
    `| ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
    `| ${n.pass} | ${n.fail} | ${n.error} | ${n.expectedFailures} | ${n.inconclusive} | ${n.skip} | ${n.total} |`,
    '',
    `Implementation ${mdCode(withoutUserinfo(result.baseUrl))}, profile ${mdCode(result.profile.name)}${v.judged === undefined ? '' : ` (${mdText(v.judged)})`}, mode ${result.mode}, seed ${result.seed}, ${result.numRuns} runs per property; tagtrack-conformance ${mdText(VERSION)}; ${(result.durationMs / 1000).toFixed(1)} s, ${result.requests.sent} requests${result.requests.retried ? ` (${result.requests.retried} answered after retries: transport faults, not verdicts; the retried requests are listed in report.html)` : ''}.`,
  );
  const sampled = result.checks.filter((c) => c.coverage !== undefined).length;
  if (sampled > 0)
    head.push(
      '',
      `**Sampled:** ${sampled} check${sampled === 1 ? '' : 's'} verified seeded samples of lists longer than \`--sample-above\` or of the callers over \`--max-callers\` (what each verified is in report.html and results.json).`,
    );
  // the entries, in order of what a reader acts on first; each one line group, never split
  const sections: { title: string; entries: string[] }[] = [
    {
      title: `### Failures by requirement (${failing.length})`,
      entries: failing.map((c) =>
        checkEntry(c, result, result.staleExpectedFailures.includes(c.id)),
      ),
    },
    {
      title: `### Expected failures (${n.expectedFailures}): listed, not counted`,
      entries: result.checks.filter(isExpectedFailure).map((c) => checkEntry(c, result, false)),
    },
    {
      title: `### Inconclusive (${n.inconclusive})`,
      entries: result.checks
        .filter((c) => c.status === 'inconclusive')
        .map(
          (c) =>
            `- **${mdCode(c.id)}** ${mdText(c.title)}: ${mdText(cut(c.reason ?? 'the data changed during every run', MARKDOWN_MESSAGE_CHARS))}`,
        ),
    },
    {
      title: `### Skipped (${n.skip})`,
      entries: skipGroups(result).map(
        (g) =>
          `- ${mdText(g.text)}: ${g.checks.map((c) => mdCode(c.id)).join(', ')}${
            g.key === 'other'
              ? ''
              : ` (${mdText([...new Set(g.checks.map((c) => c.reason ?? 'skipped'))].join('; '))})`
          }`,
      ),
    },
  ];
  const redact = (text: string) => {
    let out = text;
    const secrets = [
      ...result.profile.credentials.map((c) => c.accessKey),
      ...(options.secrets ?? []),
    ].filter((s): s is string => s !== undefined && s.length >= 4);
    for (const s of secrets) out = out.replaceAll(s, '<redacted>');
    return out;
  };
  const note = rerunNote(result.rerun);
  if (note !== undefined && failing.length > 0)
    sections[0]!.title += `\n\nBefore running these commands: ${mdText(note)}.\n`;
  const footer = '\nFull report: `report.html`; structured: `results.json`; CI: `junit.xml`.\n';
  let out = redact(head.join('\n'));
  const total = sections.reduce((k, s) => k + s.entries.length, 0);
  let written = 0;
  // room kept for the footer and the "… N more" line
  const budget = max - footer.length - 200;
  let full = false;
  for (const section of sections) {
    if (section.entries.length === 0 || full) continue;
    const title = `\n\n${section.title}\n`;
    if (out.length + title.length > budget) {
      full = true;
      break;
    }
    out += title;
    for (const entry of section.entries) {
      const text = `\n${redact(entry)}`;
      if (out.length + text.length > budget) {
        full = true;
        break;
      }
      out += text;
      written++;
    }
  }
  if (written < total)
    out += `\n\n… ${total - written} more (this summary stops at ${max.toLocaleString('en-US')} characters): see report.html and results.json.`;
  return `${out}\n${footer}`;
}
