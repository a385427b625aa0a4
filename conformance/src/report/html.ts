/**
 * The HTML report's page assembly (`toHtml`): the style, the summary at the top, the failure
 * articles, the collapsed lists and the exchanges, in the order a reader reads them. The
 * sections are built in html-summary.ts, html-failures.ts and html-lists.ts.
 */
import type { RunResult } from '../run/runner.ts';
import { e } from './html-escape.ts';
import {
  failedCheckHtml,
  inconclusiveHtml,
  retriedSection,
  sampledSection,
} from './html-failures.ts';
import { collapsedChecks, exchangeRow, matrix } from './html-lists.ts';
import { areaTable, countsTable, dataLine, indexHtml } from './html-summary.ts';
import { failedChecks, isExpectedFailure, skipGroups, verdictOf } from './verdict.ts';
import { VERSION } from './version.ts';

export {
  FAILURE_BODY_CHARS,
  rerunCommand,
  SHOWN_FINDINGS,
  WINDOW_LINE_CHARS,
} from './html-failures.ts';
export { PREVIEW_BODY_CHARS } from './html-lists.ts';

/**
 * Exchanges listed one per line, the first ones sent; the others are only counted (the HAR
 * export has them all). Bounds the report whatever `--num-runs`: 100 runs send about 6,000.
 */
export const LISTED_EXCHANGES = 3000;

const STYLE = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:1rem 1.5rem;color:#1b1f24;overflow-wrap:anywhere}
h1{margin:0 0 .2rem;font-size:1.4rem}h2{margin:1.2rem 0 .4rem;border-bottom:1px solid #ddd;font-size:1.2rem}
h3{margin:.2rem 0;font-size:1rem}
table{border-collapse:collapse;margin:.4rem 0;max-width:100%}td,th{border:1px solid #ccc;padding:.15rem .45rem;text-align:left;vertical-align:top}
.pass{background:#e6f4ea}.fail{background:#fde7e9}.error{background:#fbd3b6}.skip{background:#eee}.xfail{background:#fff4cc}.inconclusive,.partial{background:#ffe8a3}
.verdict{font-size:1.15rem;font-weight:600;margin:.3rem 0;padding:.25rem .5rem;border-left:6px solid}
.verdict.pass{border-color:#1a7f37}.verdict.partial{border-color:#bf8700}.verdict.fail{border-color:#d1242f}
.not-checked{margin:.2rem 0;padding:.15rem .5rem;background:#fff8e1}.meta{margin:.2rem 0;color:#444}
#counts td,#counts th{text-align:right;min-width:4.5rem}
#index ol{columns:22rem;column-gap:1.5rem;margin:.3rem 0;padding-left:1.6rem}
#index li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;line-height:1.5}
#index .n{display:inline-block;min-width:1.6rem;padding:0 .3rem;margin:0 .3rem;border-radius:8px;background:#fde7e9;font-size:12px;text-align:center}
#index .title{color:#57606a}
.failure{border-left:4px solid #d1242f;padding:.1rem .8rem;margin:.8rem 0}.failure.error{border-color:#bc4c00}
.failure.inconclusive,.failure.xfail{border-color:#bf8700}.failure.fail,.failure.error,.failure.xfail,.failure.inconclusive{background:none}
.finding{margin:.4rem 0}.message{margin:.2rem 0;font-weight:600}.kind{color:#6e7781;font-weight:400}
.badge{font-size:12px;padding:0 .35rem;border-radius:3px}.badge.retried{background:#ffe8a3}
.matrix td{text-align:center;font-size:12px}.matrix th{font-size:11px}
.exchanges{table-layout:fixed;width:100%}.exchanges td{font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.4rem;margin:.2rem 0;font-size:12px}
pre.body mark{background:#fff1a8;font-weight:600;display:inline-block;width:100%}
.cut{color:#6e7781;font-style:italic}
details{margin:.3rem 0}summary{cursor:pointer}code{font-size:12px}
`;

/**
 * A self-contained HTML report of a run, written to be read top down on a 1280 px screen
 * with no sideways scroll (long lines wrap, wide tables scroll inside their own box):
 * - the verdict ({@link verdictOf}: `FAIL`, a green `PASS`, or an amber `PASS (blind, 16
 *   skipped)` when something was left unchecked), the line saying what was not checked
 *   (skips counted by reason, inconclusive checks, expected failures), the counts in one row
 *   (expected failures apart from failures), the run's facts (base URL, profile, mode, seed,
 *   runs, tool version);
 * - the index of failures: one entry per failing requirement linking to it, with its number
 *   of failures and title (then the expected failures and inconclusive checks);
 * - the table by area;
 * - every failing check, each failure with its message, details (expected/actual, fast-check
 *   seed and counterexample, reproduce line) and the exchange that shows it: the body
 *   pretty-printed when JSON and cut to a window around the field the message names (that
 *   line marked), the whole body and the headers collapsed; past `SHOWN_FINDINGS`
 *   failures of a check the rest are collapsed; the command that runs the check again;
 * - the expected failures and inconclusive checks the same way;
 * - the passing and skipped checks collapsed, the requirements-by-endpoint matrix collapsed,
 *   and one line per exchange (the first {@link LISTED_EXCHANGES}, bodies previewed,
 *   `PREVIEW_BODY_CHARS`; the HAR export has them all).
 * Authorization values are redacted (`redactHeaders`, har.ts); every value is escaped with
 * `entities` (whatever a server answers is untrusted).
 */
export function toHtml(result: RunResult): string {
  const exchanges = new Map(result.exchanges.map((x) => [x.id, x]));
  const listed = Math.min(result.exchanges.length, LISTED_EXCHANGES);
  const failing = failedChecks(result);
  const v = verdictOf(result);
  const n = v.counts;
  const why = [
    ...(result.configError === undefined
      ? []
      : [`configuration error, no check ran: ${result.configError}`]),
    ...(failing.length > 0 && result.configError === undefined
      ? [`${failing.length} of ${result.checks.length} checks did not pass`]
      : []),
    ...(result.interrupted === undefined ? [] : [`the run was interrupted: ${result.interrupted}`]),
    ...(result.gateFailures ?? []).map((g) => `policy ${g}`),
  ];
  // otherwise a 5xx answer to a check listed as an expected failure (a 5xx fails the run)
  if (why.length === 0) why.push('a request was answered with a 5xx');
  const tally = `${n.pass} passed, ${n.fail} failed, ${n.error} errors, ${n.expectedFailures} expected failures${n.inconclusive > 0 ? `, ${n.inconclusive} inconclusive` : ''}, ${n.skip} skipped`;
  const verdict = result.ok
    ? n.inconclusive > 0
      ? `${v.label}: no required check failed, but ${n.inconclusive} could not be judged because the data changed during each of their runs (${tally})`
      : v.tone === 'pass'
        ? `${v.label}: every check that applies passed (${tally})`
        : `${v.label}: no required check failed${n.expectedFailures > 0 ? ` beyond the ${n.expectedFailures} listed as expected` : ''}${v.notChecked === undefined ? '' : ', but not everything was checked'} (${tally})`
    : `FAIL: ${why.join('; ')} (${tally})`;
  const judged = v.judged === undefined ? '' : `, judged under ${v.judged}`;
  const failures =
    failing.length === 0
      ? ''
      : `<section id="failures"><h2>Failures (${failing.length})</h2>\n${failing.map((c) => failedCheckHtml(c, result, exchanges)).join('\n')}</section>`;
  const expected = result.checks.filter(isExpectedFailure);
  const expectedSection =
    expected.length === 0
      ? ''
      : `<section id="expected-failures"><h2>Expected failures (${expected.length}): listed in the expected-failures file, they do not fail the run</h2>\n${expected.map((c) => failedCheckHtml(c, result, exchanges)).join('\n')}</section>`;
  const inconclusive = result.checks.filter((c) => c.status === 'inconclusive');
  const unjudged =
    inconclusive.length === 0
      ? ''
      : `<section id="inconclusive"><h2>Inconclusive (${inconclusive.length})</h2>\n<p>The data changed during each run of these checks, so no answer read on still data shows whether they conform (spec §5 Revision 3). They neither pass nor fail; run them again when the data is quieter, or with more <code>--attempts</code>.</p>\n${inconclusive.map((c) => inconclusiveHtml(c, result)).join('\n')}</section>`;
  const skipped = skipGroups(result)
    .map((g) => collapsedChecks(`skipped: ${g.text}`, g.checks, true))
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tagtrack conformance report: ${e(v.label)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>tagtrack conformance report</h1>
<section id="summary">
<p class="verdict ${v.tone}">${e(verdict)}${e(judged)}</p>
${v.notChecked === undefined ? '' : `<p class="not-checked">Not checked: ${e(v.notChecked)}.</p>`}
${countsTable(result)}
<p class="meta">Implementation <code>${e(result.baseUrl)}</code>, profile <code>${e(result.profile.name)}</code>${v.judged === undefined ? '' : ` (${e(v.judged)})`}, mode ${e(result.mode)},
seed ${result.seed}, ${result.numRuns} runs per property; tagtrack-conformance ${e(VERSION)}; started ${e(result.startedAt)}, ${result.durationMs} ms,
${result.requests.sent} requests (${result.requests.cacheHits} more served from the run cache${result.requests.retried ? `; ${result.requests.retried} answered after retries` : ''}).</p>
${(result.warnings ?? []).map((w) => `<p class="meta">Warning: ${e(w)}</p>`).join('\n')}
${dataLine(result)}
</section>
${indexHtml(result)}
<h2>By area</h2>
${areaTable(result)}
${failures}
${expectedSection}
${unjudged}
${retriedSection(result)}
${sampledSection(result)}
<h2>Checks</h2>
${collapsedChecks(
  'passing checks',
  result.checks.filter((c) => c.status === 'pass' && !result.staleExpectedFailures.includes(c.id)),
)}
${skipped}
<details id="coverage"><summary>Coverage: requirements by endpoint</summary>
${matrix(result)}
</details>
<h2>Requests and responses (${result.exchanges.length})</h2>
<p>One line per exchange; a failure above shows its exchange in full. Every request and response with its headers and body: <code>--har FILE</code> (HAR 1.2, opens in a browser's network panel). Authorization values are redacted.</p>
<details id="exchanges"><summary>${listed < result.exchanges.length ? `the first ${listed} exchanges of ${result.exchanges.length}` : `every exchange (${listed})`}</summary>
<table class="exchanges"><colgroup><col style="width:4rem"><col style="width:40%"><col style="width:4rem"><col style="width:8rem"><col style="width:4rem"><col></colgroup><tr><th>#</th><th>request</th><th>status</th><th>as</th><th>ms</th><th>body</th></tr>
${result.exchanges.slice(0, listed).map(exchangeRow).join('\n')}
</table></details>
</body>
</html>
`;
}
