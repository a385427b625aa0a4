#!/usr/bin/env node
/**
 * The annotation step of the tagtrack-conformance GitHub Action (action.yml): reads the
 * results.json of a run and prints one `::error` workflow command per failing or erroring
 * check (its requirement id, clause, first failure and how to reproduce it) and per stale
 * expected-failure entry, a `::warning` when the run was interrupted, and a `::notice` with
 * the totals. With `GITHUB_STEP_SUMMARY` set, it appends the run's Markdown summary to that
 * file: the suite's `summary.md` beside results.json (verdict, what was not checked, counts,
 * failures by requirement with their reproduce commands, skips by reason; capped at 60,000
 * characters), or, when the suite wrote none (a release before it did), {@link stepSummary}.
 *
 * Usage: `node annotate.mjs RESULTS_JSON`. Exit 0 when the annotations were written (whatever
 * the run's verdict: the action fails on the suite's own exit code), 2 when the file is
 * missing or is not a results.json of tagtrack-conformance.
 *
 * results.json carries no secret (credentials by label, access keys redacted), and neither
 * does anything printed here.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** At most this many `::error` lines (GitHub shows 10 per step; the summary lists all). */
export const MAX_ANNOTATIONS = 10;

/** Escapes the message of a workflow command (`%`, CR, LF). */
export function escapeData(text) {
  return String(text).replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** Escapes a property value of a workflow command (`title=`): also `:` and `,`. */
export function escapeProperty(text) {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/**
 * Checks that `value` is a results.json document of tagtrack-conformance (the fields this
 * script reads). Throws an Error naming the first problem.
 */
export function assertResults(value) {
  if (typeof value !== 'object' || value === null)
    throw new Error('results.json is not a JSON object');
  if (value.suite !== 'tagtrack-conformance') {
    throw new Error(
      `results.json: "suite" is ${JSON.stringify(value.suite)}, expected "tagtrack-conformance"`,
    );
  }
  if (!Array.isArray(value.checks)) throw new Error('results.json: "checks" is not an array');
  for (const [i, c] of value.checks.entries()) {
    if (typeof c?.id !== 'string' || typeof c?.status !== 'string' || !Array.isArray(c?.failures)) {
      throw new Error(
        `results.json: checks[${i}] lacks a string id, a string status or a failures array`,
      );
    }
  }
  if (typeof value.summary !== 'object' || value.summary === null) {
    throw new Error('results.json: "summary" is missing');
  }
}

/** The checks that fail the run: status `fail` or `error` and not an expected failure. */
export function failingChecks(results) {
  return results.checks.filter(
    (c) => (c.status === 'fail' || c.status === 'error') && c.expectedFailure === undefined,
  );
}

/** One line of a check's first failure: message, expected/actual, reproduce command. */
function describeFailure(check) {
  const first = check.failures[0];
  if (first === undefined) return check.reason ?? `status ${check.status}`;
  const parts = [first.message];
  if (first.expected !== undefined) parts.push(`expected: ${first.expected}`);
  if (first.actual !== undefined) parts.push(`actual: ${first.actual}`);
  if (first.reproduce !== undefined) parts.push(`reproduce: ${first.reproduce}`);
  const more = check.failures.length - 1 + (first.repeats ?? 0);
  if (more > 0) parts.push(`(${more} more failure${more === 1 ? '' : 's'} in report.html)`);
  return parts.join('\n');
}

/**
 * The workflow command lines for a results.json document: `::error` per failing check (at
 * most {@link MAX_ANNOTATIONS}, then one saying how many more), `::error` per stale expected
 * failure, `::warning` if interrupted, and a final `::notice` with the totals.
 */
export function annotations(results) {
  const lines = [];
  const failing = failingChecks(results);
  for (const check of failing.slice(0, MAX_ANNOTATIONS)) {
    const title = `${check.id} ${check.status === 'error' ? 'errored' : 'failed'}`;
    const body = `${check.title ?? check.id} (${check.clause ?? 'no clause'}; seed ${check.seed ?? '?'})\n${describeFailure(check)}`;
    lines.push(`::error title=${escapeProperty(title)}::${escapeData(body)}`);
  }
  if (failing.length > MAX_ANNOTATIONS) {
    lines.push(
      `::error title=${escapeProperty('more failing checks')}::${escapeData(
        `${failing.length - MAX_ANNOTATIONS} more failing checks: ${failing
          .slice(MAX_ANNOTATIONS)
          .map((c) => c.id)
          .join(', ')} (see the job summary and report.html)`,
      )}`,
    );
  }
  for (const id of results.staleExpectedFailures ?? []) {
    lines.push(
      `::error title=${escapeProperty(`${id} passed`)}::${escapeData(
        `${id} is listed in the expected failures but passed: remove the entry`,
      )}`,
    );
  }
  if (results.interrupted !== undefined) {
    lines.push(
      `::warning title=run interrupted::${escapeData(`the run stopped early (${results.interrupted})`)}`,
    );
  }
  const s = results.summary;
  lines.push(
    `::notice title=tagtrack-conformance::${escapeData(
      `${results.ok ? 'PASSED' : 'FAILED'}: ${s.pass} pass, ${s.fail} fail, ${s.error} error, ${s.skip} skip` +
        ` (${s.expectedFailures ?? 0} expected failures); profile ${results.profile?.name ?? '?'}, mode ${results.mode ?? '?'}, seed ${results.seed ?? '?'}`,
    )}`,
  );
  return lines;
}

/** Escapes text for a Markdown table cell (pipes, newlines, HTML). */
function cell(text) {
  return String(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replaceAll(/\r?\n/g, '<br>');
}

/** The Markdown job summary: verdict, totals, and a table of every failing check. */
export function stepSummary(results) {
  const s = results.summary;
  const out = [
    `## tagtrack-conformance: ${results.ok ? 'passed' : 'FAILED'}`,
    '',
    `Profile \`${results.profile?.name ?? '?'}\`, mode \`${results.mode ?? '?'}\`, seed \`${results.seed ?? '?'}\`, ${results.requests?.sent ?? '?'} requests.`,
    '',
    '| pass | fail | error | skip | expected failures |',
    '| ---: | ---: | ---: | ---: | ---: |',
    `| ${s.pass} | ${s.fail} | ${s.error} | ${s.skip} | ${s.expectedFailures ?? 0} |`,
  ];
  const failing = failingChecks(results);
  if (failing.length > 0) {
    out.push('', '| check | clause | first failure |', '| --- | --- | --- |');
    for (const c of failing) {
      out.push(`| \`${c.id}\` | ${cell(c.clause ?? '')} | ${cell(describeFailure(c))} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

async function main(argv) {
  const file = argv[0];
  if (file === undefined) {
    process.stdout.write(
      '::error title=tagtrack-conformance::annotate.mjs needs the path of results.json\n',
    );
    return 2;
  }
  let results;
  try {
    results = JSON.parse(await readFile(file, 'utf8'));
    assertResults(results);
  } catch (e) {
    const why = e?.code === 'ENOENT' ? `${file} does not exist (did the run start?)` : e.message;
    process.stdout.write(`::error title=tagtrack-conformance::${escapeData(why)}\n`);
    return 2;
  }
  process.stdout.write(`${annotations(results).join('\n')}\n`);
  if (process.env.GITHUB_STEP_SUMMARY) {
    // the suite's own Markdown summary (summary.md beside results.json, from 0.4 on), else
    // this script's table (a suite of an older release)
    const own = await readFile(join(dirname(file), 'summary.md'), 'utf8').catch(() => undefined);
    await appendFile(process.env.GITHUB_STEP_SUMMARY, own ?? stepSummary(results));
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
