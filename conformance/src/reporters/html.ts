import { ENDPOINT_LIST } from '@tagtrack/core';
import { escapeAttribute, escapeText } from 'entities';
import { AREA_TITLES, AREAS, type Area } from '../checks/define.ts';
import type { Failure } from '../checks/failure.ts';
import type { Exchange } from '../http.ts';
import type { CheckResult, RunResult } from '../runner.ts';
import { VERSION } from '../version.ts';
import { redactHeaders } from './har.ts';
import { failureText } from './text.ts';

/** Text escaped for an element's content (`&`, `<`, `>`), with `entities`. */
const e = (s: unknown): string => escapeText(String(s));
/** Text escaped for a double-quoted attribute value (`&`, `"`), with `entities`. */
const a = (s: unknown): string => escapeAttribute(String(s));

/** Characters of a body shown with a failure (the exchange opened inline); the rest is cut. */
export const FAILURE_BODY_CHARS = 2000;

/**
 * Characters of a body previewed in the list of requests and responses. Small on purpose: a
 * passing run of the whole suite (about 3,000 exchanges) stays under 1 MB; every body as the
 * suite kept it is in the HAR export (`--har FILE`).
 */
export const PREVIEW_BODY_CHARS = 60;

/**
 * Exchanges listed one per line, the first ones sent; the others are only counted (the HAR
 * export has them all). Bounds the report whatever `--num-runs`: 100 runs send about 6,000.
 */
export const LISTED_EXCHANGES = 3000;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.2rem 2rem;color:#1b1f24}
h1{margin:0 0 .2rem;font-size:1.5rem}h2{margin:1.4rem 0 .4rem;border-bottom:1px solid #ddd}
h3{margin:.2rem 0;font-size:1rem}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #ccc;padding:.15rem .45rem;text-align:left;vertical-align:top}
.pass{background:#e6f4ea}.fail{background:#fde7e9}.error{background:#fbd3b6}.skip{background:#eee}.xfail{background:#fff4cc}.inconclusive{background:#ffe8a3}
.failure.inconclusive{border-color:#bf8700;background:none}
.verdict{font-size:1.15rem;font-weight:600;margin:.3rem 0;padding:.2rem .5rem}.meta{margin:.2rem 0;color:#444}
.failure{border-left:4px solid #d1242f;padding:.1rem .8rem;margin:.6rem 0}.failure.fail,.failure.pass{background:none}.failure.error{border-color:#bc4c00;background:none}
.finding{margin:.4rem 0}.message{margin:.2rem 0;font-weight:600}.kind{color:#6e7781;font-weight:400}
.badge{font-size:12px;padding:0 .35rem;border-radius:3px}
.matrix td{text-align:center;font-size:12px}.matrix th{font-size:11px}.exchanges td{font-size:12px}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.4rem;margin:.2rem 0;font-size:12px}
details{margin:.3rem 0}summary{cursor:pointer}code{font-size:12px}
`;

/** Whether a failed or errored check counts against the run (not listed as expected to fail). */
const counts = (c: CheckResult) =>
  (c.status === 'fail' || c.status === 'error') && c.expectedFailure === undefined;

function cut(body: string, limit: number): string {
  return body.length > limit
    ? `${body.slice(0, limit)}… (${limit} of ${body.length} characters shown)`
    : body;
}

const headerLines = (h: Readonly<Record<string, string>>) =>
  Object.entries(redactHeaders(h))
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

/** An exchange in full (headers redacted, body cut at {@link FAILURE_BODY_CHARS}), opened. */
function exchangeInline(x: Exchange): string {
  return (
    `<details open class="exchange"><summary><code>exchange #${x.id}: ${e(x.method)} ${e(x.target)} → ${x.status}` +
    `${x.credential === null ? '' : ` (as ${e(x.credential)})`}, ${x.durationMs} ms</code></summary>` +
    `<pre>${e(`${x.method} ${x.url}\n${headerLines(x.requestHeaders)}`)}</pre>` +
    `<pre>${e(`HTTP ${x.status}\n${headerLines(x.responseHeaders)}\n\n${cut(x.body, FAILURE_BODY_CHARS)}`)}</pre></details>`
  );
}

/** One failure: its message (kind first), the other lines of {@link failureText}, its exchange. */
function findingHtml(f: Failure, exchanges: ReadonlyMap<number, Exchange>): string {
  const [head = '', ...rest] = failureText(f).split('\n');
  const kind = `[${f.kind}] `;
  const message = head.startsWith(kind) ? head.slice(kind.length) : head;
  const details = rest.map((l) => l.replace(/^ {2}/, '')).join('\n');
  const x = f.exchangeId === undefined ? undefined : exchanges.get(f.exchangeId);
  return (
    `<div class="finding"><p class="message"><span class="kind">${e(kind)}</span>${e(message)}</p>` +
    `${details === '' ? '' : `<pre>${e(details)}</pre>`}${x === undefined ? '' : exchangeInline(x)}</div>`
  );
}

/** The command line that runs one check again with the run's seed (same requests, same verdict). */
export function rerunCommand(result: RunResult, id: string): string {
  return [
    'tagtrack-conformance run',
    `--base-url ${result.baseUrl}`,
    `--mode ${result.mode}`,
    `--seed ${result.seed}`,
    `--num-runs ${result.numRuns}`,
    `--only ${id}`,
  ].join(' ');
}

/** A failing (or errored, or stale expected-failure) check with every failure opened. */
function failedCheckHtml(
  c: CheckResult,
  result: RunResult,
  exchanges: ReadonlyMap<number, Exchange>,
): string {
  const stale = result.staleExpectedFailures.includes(c.id);
  const label = stale ? 'STALE' : c.status.toUpperCase();
  const why = stale
    ? '<p class="message">listed in the expected-failures file but passed: remove the entry</p>'
    : c.status === 'error'
      ? `<p class="message"><span class="kind">[error] </span>${e(c.reason ?? 'error')}</p>`
      : '';
  return (
    `<article class="failure ${c.status}" id="${a(c.id)}">` +
    `<h3><span class="badge ${stale ? 'fail' : c.status}">${label}</span> <code>${e(c.id)}</code> ${e(c.title)} <small>[${e(c.clause)}]</small></h3>` +
    `${why}${c.failures.map((f) => findingHtml(f, exchanges)).join('')}` +
    `<p class="meta">check seed ${c.seed}; run it again: <code>${e(rerunCommand(result, c.id))}</code></p></article>`
  );
}

/** An inconclusive check: what moved, how often it ran, the command that runs it again. */
function inconclusiveHtml(c: CheckResult, result: RunResult): string {
  return (
    `<article class="failure inconclusive" id="${a(c.id)}">` +
    `<h3><span class="badge inconclusive">INCONCLUSIVE</span> <code>${e(c.id)}</code> ${e(c.title)} <small>[${e(c.clause)}]</small></h3>` +
    `<p class="message">${e(c.reason ?? 'the data changed during every run')}</p>` +
    `<p class="meta">${c.attempts ?? 1} runs, ${c.requests} requests; check seed ${c.seed}; run it again: <code>${e(rerunCommand(result, c.id))}</code></p></article>`
  );
}

/** How the run watched its data (decisions §3 Revision 3), when a watermark moved or could not be read. */
function dataLine(result: RunResult): string {
  const d = result.data;
  if (d === undefined || (d.moved === undefined && d.note === undefined)) return '';
  const text =
    d.moved !== undefined
      ? `Data (--data ${d.mode}): ${d.moved} during the run; ${d.rerunChecks} failing checks ran again (${d.reruns} runs, ${d.watermarkRequests} watermark requests).`
      : `Data (--data ${d.mode}): ${d.note}.`;
  return `<p class="meta">${e(text)}</p>`;
}

function areaTable(result: RunResult): string {
  const areas = [...new Set([...AREAS, ...result.checks.map((c) => c.area)])].filter((area) =>
    result.checks.some((c) => c.area === area),
  );
  // the inconclusive column only when a check was (decisions §3 Revision 3)
  const statuses = result.checks.some((c) => c.status === 'inconclusive')
    ? ['pass', 'fail', 'inconclusive', 'error', 'skip']
    : ['pass', 'fail', 'error', 'skip'];
  const n = (area: string | undefined, s: string) =>
    result.checks.filter((c) => (area === undefined || c.area === area) && c.status === s).length;
  const cells = (area: string | undefined) =>
    statuses.map((s) => `<td>${n(area, s)}</td>`).join('');
  const rows = areas
    .map(
      (area) =>
        `<tr><th title="${a(AREA_TITLES[area as Area] ?? 'custom checks')}">${e(area)}</th>${cells(area)}</tr>`,
    )
    .join('');
  return (
    `<table id="areas"><tr><th>area</th>${statuses.map((s) => `<th>${s}</th>`).join('')}</tr>${rows}` +
    `<tr><th>total</th>${cells(undefined)}</tr></table>`
  );
}

function checkRows(checks: readonly CheckResult[]): string {
  return checks
    .map((c) => {
      const xfail =
        c.expectedFailure !== undefined && (c.status === 'fail' || c.status === 'error');
      const status = xfail
        ? `${c.status} (expected${c.expectedFailure ? `: ${c.expectedFailure}` : ''})`
        : c.status;
      const note =
        c.reason === undefined || c.status === 'error' ? '' : `<br><small>${e(c.reason)}</small>`;
      return `<tr id="${a(c.id)}"><td><code>${e(c.id)}</code></td><td>${e(c.area)}</td><td class="${xfail ? 'xfail' : c.status}">${e(status)}</td><td>${e(c.title)} <small>[${e(c.clause)}]</small>${note}</td><td>${c.requests}</td><td>${c.durationMs}</td></tr>`;
    })
    .join('\n');
}

function collapsedChecks(title: string, checks: readonly CheckResult[], extra = ''): string {
  if (checks.length === 0) return '';
  return (
    `<details class="checks"><summary>${e(title)} (${checks.length})</summary>${extra}` +
    `<table><tr><th>requirement</th><th>area</th><th>status</th><th>what it checks</th><th>requests</th><th>ms</th></tr>\n${checkRows(checks)}</table></details>`
  );
}

function matrix(result: RunResult): string {
  const ids = ENDPOINT_LIST.map((x) => x.id);
  const rows = result.checks
    .map(
      (c) =>
        `<tr><th>${e(c.id)}</th>${ids.map((id) => (c.endpoints.includes(id) ? `<td class="${c.status}">${c.status}</td>` : '<td></td>')).join('')}</tr>`,
    )
    .join('\n');
  return `<table class="matrix"><tr><th>requirement</th>${ids.map((id) => `<th>${e(id)}</th>`).join('')}</tr>\n${rows}</table>`;
}

/** One line per exchange: number, request, status, credential, time, the body's first characters. */
function exchangeRow(x: Exchange): string {
  const preview =
    x.body.length > PREVIEW_BODY_CHARS ? `${x.body.slice(0, PREVIEW_BODY_CHARS)}…` : x.body;
  return `<tr id="x${x.id}"><td>${x.id}</td><td>${e(x.method)} ${e(x.target)}</td><td>${x.status}</td><td>${e(x.credential ?? '-')}</td><td>${Math.round(x.durationMs)}</td><td>${e(preview)}</td></tr>`;
}

/**
 * A self-contained HTML report of a run, written to be read top down: the verdict and the
 * run's facts (base URL, profile, mode, seed, runs, tool version); then every failing check
 * first, each failure with its message, its details (expected/actual, fast-check seed and
 * counterexample, reproduce line) and its exchange opened inline, and the command that runs
 * the check again; then the table by area; then the passing, skipped and expected-failure
 * checks collapsed, the requirements-by-endpoint matrix collapsed, and one line per exchange
 * (the first {@link LISTED_EXCHANGES}, bodies previewed, {@link PREVIEW_BODY_CHARS}; the HAR
 * export has them all). Authorization
 * values are redacted ({@link redactHeaders}); every value is escaped with `entities`.
 */
export function toHtml(result: RunResult): string {
  const exchanges = new Map(result.exchanges.map((x) => [x.id, x]));
  const listed = Math.min(result.exchanges.length, LISTED_EXCHANGES);
  const failing = result.checks.filter(
    (c) => counts(c) || result.staleExpectedFailures.includes(c.id),
  );
  const s = result.summary;
  const why = [
    ...(result.configError === undefined
      ? []
      : [`configuration error, no check ran: ${result.configError}`]),
    ...(failing.length > 0 && result.configError === undefined
      ? [`${failing.length} of ${result.checks.length} checks did not pass`]
      : []),
    ...(result.interrupted === undefined ? [] : [`the run was interrupted: ${result.interrupted}`]),
  ];
  // otherwise a 5xx answer to a check listed as an expected failure (a 5xx fails the run)
  if (why.length === 0) why.push('a request was answered with a 5xx');
  const inconclusive = result.checks.filter((c) => c.status === 'inconclusive');
  const verdict = result.ok
    ? inconclusive.length > 0
      ? `PASS with ${inconclusive.length} inconclusive: no required check failed, but ${inconclusive.length} could not be judged because the data changed during each of their runs (${s.pass} passed, ${inconclusive.length} inconclusive, ${s.skip} skipped)`
      : `PASS: every required check passed (${s.pass} passed, ${s.skip} skipped)`
    : `FAIL: ${why.join('; ')} (${s.pass} passed, ${s.skip} skipped)`;
  const failures =
    failing.length === 0
      ? ''
      : `<section id="failures"><h2>Failures (${failing.length})</h2>\n${failing.map((c) => failedCheckHtml(c, result, exchanges)).join('\n')}</section>`;
  const unjudged =
    inconclusive.length === 0
      ? ''
      : `<section id="inconclusive"><h2>Inconclusive (${inconclusive.length})</h2>\n<p>The data changed during each run of these checks, so no answer read on still data shows whether they conform (decisions §3 Revision 3). They neither pass nor fail; run them again when the data is quieter, or with more <code>--attempts</code>.</p>\n${inconclusive.map((c) => inconclusiveHtml(c, result)).join('\n')}</section>`;
  const expected = result.checks.filter(
    (c) => c.expectedFailure !== undefined && !counts(c) && c.status !== 'pass',
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tagtrack conformance report: ${result.ok ? 'PASS' : 'FAIL'}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>tagtrack conformance report</h1>
<section id="summary">
<p class="verdict ${result.ok ? (inconclusive.length > 0 ? 'inconclusive' : 'pass') : 'fail'}">${e(verdict)}</p>
<p class="meta">Implementation <code>${e(result.baseUrl)}</code>, profile <code>${e(result.profile.name)}</code>, mode ${e(result.mode)},
seed ${result.seed}, ${result.numRuns} runs per property; tagtrack-conformance ${e(VERSION)}; started ${e(result.startedAt)}, ${result.durationMs} ms,
${result.requests.sent} requests (${result.requests.cacheHits} more served from the run cache); ${s.expectedFailures} expected failures.</p>
${(result.warnings ?? []).map((w) => `<p class="meta">Warning: ${e(w)}</p>`).join('\n')}
</section>
${dataLine(result)}
${failures}
${unjudged}
<h2>By area</h2>
${areaTable(result)}
<h2>Checks</h2>
${collapsedChecks('expected failures (they do not fail the run)', expected)}
${collapsedChecks(
  'passing checks',
  result.checks.filter((c) => c.status === 'pass' && !result.staleExpectedFailures.includes(c.id)),
)}
${collapsedChecks(
  'skipped checks',
  result.checks.filter((c) => c.status === 'skip'),
)}
<details id="coverage"><summary>Coverage: requirements by endpoint</summary>
${matrix(result)}
</details>
<h2>Requests and responses (${result.exchanges.length})</h2>
<p>One line per exchange; a failure above shows its exchange in full. Every request and response with its headers and body: <code>--har FILE</code> (HAR 1.2, opens in a browser's network panel). Authorization values are redacted.</p>
<details id="exchanges"><summary>${listed < result.exchanges.length ? `the first ${listed} exchanges of ${result.exchanges.length}` : `every exchange (${listed})`}</summary>
<table class="exchanges"><tr><th>#</th><th>request</th><th>status</th><th>as</th><th>ms</th><th>body</th></tr>
${result.exchanges.slice(0, listed).map(exchangeRow).join('\n')}
</table></details>
</body>
</html>
`;
}
