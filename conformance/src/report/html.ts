import { ENDPOINT_LIST } from '@tagtrack/core';
import { escapeAttribute, escapeText } from 'entities';
import { AREA_TITLES, AREAS, type Area } from '../check/define.ts';
import type { Failure } from '../check/failure.ts';
import type { Exchange } from '../http/client.ts';
import { runAgainCommand } from '../http/rerun.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';
import { bodyView } from './body.ts';
import { redactHeaders } from './har.ts';
import { failureText } from './text.ts';
import { countsOf, failedChecks, isExpectedFailure, skipGroups, verdictOf } from './verdict.ts';
import { VERSION } from './version.ts';

/** Text escaped for an element's content (`&`, `<`, `>`), with `entities`. */
const e = (s: unknown): string => escapeText(String(s));
/** Text escaped for a double-quoted attribute value (`&`, `"`), with `entities`. */
const a = (s: unknown): string => escapeAttribute(String(s));

/** Characters of a body shown from its start (collapsed) under a failure's window of it; the rest is cut. */
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
#index li{overflow-wrap:anywhere;line-height:1.5;margin-bottom:.2em}
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

function cut(body: string, limit: number): string {
  return body.length > limit
    ? `${body.slice(0, limit)}… (${limit} of ${body.length} characters shown)`
    : body;
}

/** Characters of one line shown in a body's window; the whole line is in the collapsed body. */
export const WINDOW_LINE_CHARS = 300;

/**
 * A response body next to the failure it shows: pretty-printed when JSON, a window of lines
 * around the field the message names (that line marked), the lines above and below counted,
 * and the whole body (cut at {@link FAILURE_BODY_CHARS}) collapsed below.
 */
function bodyHtml(body: string, message: string): string {
  if (body === '') return '<p class="cut">(empty body)</p>';
  const view = bodyView(body, message);
  const shown = view.lines
    .slice(view.from, view.to)
    .map((line, i) => {
      const text = e(cut(line, WINDOW_LINE_CHARS));
      return view.from + i === view.mark ? `<mark>${text}</mark>` : text;
    })
    .join('\n');
  const above = view.from > 0 ? `<span class="cut">… ${view.from} lines above</span>\n` : '';
  const below =
    view.to < view.lines.length
      ? `\n<span class="cut">… ${view.lines.length - view.to} lines below</span>`
      : '';
  const whole = view.lines.join('\n');
  const all =
    view.from === 0 &&
    view.to === view.lines.length &&
    whole.length <= WINDOW_LINE_CHARS * view.lines.length
      ? ''
      : `<details class="whole"><summary>the body from its start (${view.lines.length} lines${view.json ? ' pretty-printed' : ''}${whole.length > FAILURE_BODY_CHARS ? `, the first ${FAILURE_BODY_CHARS} characters here; all of it with --har` : ''})</summary><pre>${e(cut(whole, FAILURE_BODY_CHARS))}</pre></details>`;
  return `<pre class="body">${above}${shown}${below}</pre>${all}`;
}

/**
 * Header lines (`name: value`, redacted), escaped, a line whose header name the message names
 * marked (case-insensitive).
 */
function headersHtml(first: string, h: Readonly<Record<string, string>>, message: string): string {
  const said = message.toLowerCase();
  const lines = Object.entries(redactHeaders(h)).map(([k, v]) => {
    const text = e(`${k}: ${v}`);
    return said.includes(k.toLowerCase()) ? `<mark>${text}</mark>` : text;
  });
  return `<pre class="body">${e(first)}\n${lines.join('\n')}</pre>`;
}

/**
 * An exchange next to a failure: request line and status, then what the failure is about
 * first: for a `header` failure the headers (the one it names marked) and the body
 * collapsed, otherwise the body's window ({@link bodyHtml}) and the headers (redacted)
 * collapsed. Opened for the first failure of a check, closed for the others.
 */
function exchangeInline(x: Exchange, f: Failure, open: boolean): string {
  const headers =
    headersHtml(`${x.method} ${x.url}`, x.requestHeaders, f.message) +
    headersHtml(`HTTP ${x.status}`, x.responseHeaders, f.message);
  const body = bodyHtml(x.body, f.message);
  const inner =
    f.kind === 'header'
      ? `${headers}<details class="whole"><summary>body</summary>${body}</details>`
      : `${body}<details class="headers"><summary>headers</summary>${headers}</details>`;
  return (
    `<details${open ? ' open' : ''} class="exchange"><summary><code>exchange #${x.id}: ${e(x.method)} ${e(x.target)} → ${x.status}` +
    `${x.credential === null ? '' : ` (as ${e(x.credential)})`}, ${Math.round(x.durationMs)} ms</code></summary>` +
    `${inner}</details>`
  );
}

/**
 * One failure: its message (kind first), the other lines of {@link failureText}, its exchange
 * (opened when `open`; an exchange already shown by an earlier failure of the check is named,
 * not repeated).
 */
function findingHtml(
  f: Failure,
  exchanges: ReadonlyMap<number, Exchange>,
  shown: Set<number>,
  open: boolean,
): string {
  const [head = '', ...rest] = failureText(f).split('\n');
  const kind = `[${f.kind}] `;
  const message = head.startsWith(kind) ? head.slice(kind.length) : head;
  const details = rest.map((l) => l.replace(/^ {2}/, '')).join('\n');
  const x = f.exchangeId === undefined ? undefined : exchanges.get(f.exchangeId);
  let exchange = '';
  if (x !== undefined && shown.has(x.id))
    exchange = `<p class="meta">exchange #${x.id}, shown above</p>`;
  else if (x !== undefined) {
    shown.add(x.id);
    exchange = exchangeInline(x, f, open);
  }
  return (
    `<div class="finding"><p class="message"><span class="kind">${e(kind)}</span>${e(message)}</p>` +
    `${details === '' ? '' : `<pre>${e(details)}</pre>`}${exchange}</div>`
  );
}

/** Failures of a check shown in full; the others are collapsed below them. */
export const SHOWN_FINDINGS = 3;

/**
 * The command line that runs one check again with the run's seed (same requests, same
 * verdict), runnable as printed where the run started: credentials, extra headers and TLS
 * settings read from where the run read them (rerun.ts `runAgainCommand`; no secret).
 */
export function rerunCommand(result: RunResult, id: string): string {
  return runAgainCommand(result, id);
}

/** The findings of a check: the first {@link SHOWN_FINDINGS} in full, the rest collapsed. */
function findingsHtml(c: CheckResult, exchanges: ReadonlyMap<number, Exchange>): string {
  const shown = new Set<number>();
  const html = c.failures.map((f, i) => findingHtml(f, exchanges, shown, i === 0));
  if (html.length <= SHOWN_FINDINGS) return html.join('');
  const rest = html.length - SHOWN_FINDINGS;
  return (
    html.slice(0, SHOWN_FINDINGS).join('') +
    `<details class="more"><summary>${rest} more failure${rest === 1 ? '' : 's'} of this check</summary>${html.slice(SHOWN_FINDINGS).join('')}</details>`
  );
}

/** How many failures a check found, counting those merged into one (`repeats`). */
const failureCount = (c: CheckResult) =>
  c.failures.reduce((n, f) => n + 1 + (f.kind === 'summary' ? 0 : (f.repeats ?? 0)), 0);

/** A failing (or errored, or stale, or expected) check with its failures. */
function failedCheckHtml(
  c: CheckResult,
  result: RunResult,
  exchanges: ReadonlyMap<number, Exchange>,
): string {
  const stale = result.staleExpectedFailures.includes(c.id);
  const xfail = isExpectedFailure(c);
  const label = stale
    ? 'STALE'
    : xfail
      ? `EXPECTED ${c.status.toUpperCase()}`
      : c.status.toUpperCase();
  const why = stale
    ? '<p class="message">listed in the expected-failures file but passed: remove the entry</p>'
    : `${xfail ? `<p class="meta">listed in the expected-failures file${c.expectedFailure ? `: ${e(c.expectedFailure)}` : ''}; not counted as a failure</p>` : ''}${
        c.status === 'error'
          ? `<p class="message"><span class="kind">[error] </span>${e(c.reason ?? 'error')}</p>`
          : ''
      }`;
  return (
    `<article class="failure ${xfail ? 'xfail' : c.status}" id="${a(c.id)}">` +
    `<h3><span class="badge ${stale ? 'fail' : xfail ? 'xfail' : c.status}">${label}</span> <code>${e(c.id)}</code> ${e(c.title)} <small>[${e(c.clause)}]</small></h3>` +
    `${why}${retriedHtml(c)}${findingsHtml(c, exchanges)}` +
    `<p class="meta">check seed ${c.seed}; run it again: <code>${e(rerunCommand(result, c.id))}</code></p></article>`
  );
}

/** A check's requests answered after retries (transport faults), as a list; `''` when none. */
function retriedHtml(c: CheckResult): string {
  if (c.retried === undefined) return '';
  const items = c.retried
    .map(
      (q) =>
        `<li><code>${e(`${q.method} ${q.target}`)}</code> answered on try ${q.tries} after ${e(q.causes.join(', '))} (exchange <a href="#x${q.exchangeId}">${q.exchangeId}</a>)</li>`,
    )
    .join('');
  return `<div class="retried"><p class="meta"><span class="badge retried">RETRIED</span> ${c.retried.length} request${c.retried.length === 1 ? '' : 's'} answered after transport faults; the verdict rests on the answers it got</p><ul>${items}</ul></div>`;
}

/**
 * The checks that needed retries (transport faults are not verdicts, docs/spec.md §11), each
 * with its status and its retried requests; `''` when none.
 */
function retriedSection(result: RunResult): string {
  const checks = result.checks.filter((c) => c.retried !== undefined);
  if (checks.length === 0) return '';
  return `<section id="retried"><h2>Retried (${checks.length} check${checks.length === 1 ? '' : 's'}, ${result.requests.retried ?? 0} requests)</h2>
<p>These checks needed retries of requests that timed out, had their connection reset or got a 502, 503 or 504 (<code>--retries ${result.requests.retries ?? '?'}</code>). Transport faults are not verdicts: each check passed or failed on the answers it got.</p>
${checks.map((c) => `<article class="retried" id="retried-${a(c.id)}"><h3><span class="badge ${c.status}">${c.status.toUpperCase()}</span> <code>${e(c.id)}</code> ${e(c.title)}</h3>${retriedHtml(c)}</article>`).join('\n')}</section>`;
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

/** How the run watched its data (spec §5 Revision 3), when a watermark moved or could not be read. */
function dataLine(result: RunResult): string {
  const d = result.data;
  if (d === undefined || (d.moved === undefined && d.note === undefined)) return '';
  const text =
    d.moved !== undefined
      ? `Data (--data ${d.mode}): ${d.moved} during the run; ${d.rerunChecks} failing checks ran again (${d.reruns} runs, ${d.watermarkRequests} watermark requests).`
      : `Data (--data ${d.mode}): ${d.note}.`;
  return `<p class="meta">${e(text)}</p>`;
}

/** The run's counts in one row: each check in one column (expected failures apart). */
function countsTable(result: RunResult): string {
  const n = countsOf(result);
  const cols: [string, number, string][] = [
    ['passed', n.pass, 'pass'],
    ['failed', n.fail, n.fail > 0 ? 'fail' : ''],
    ['errors', n.error, n.error > 0 ? 'error' : ''],
    ['expected failures', n.expectedFailures, n.expectedFailures > 0 ? 'xfail' : ''],
    ...(n.inconclusive > 0
      ? [['inconclusive', n.inconclusive, 'inconclusive'] as [string, number, string]]
      : []),
    ['skipped', n.skip, n.skip > 0 ? 'skip' : ''],
    ['checks', n.total, ''],
  ];
  return (
    `<table id="counts"><tr>${cols.map(([h]) => `<th>${h}</th>`).join('')}</tr>` +
    `<tr>${cols.map(([, v, cls]) => `<td${cls === '' ? '' : ` class="${cls}"`}>${v}</td>`).join('')}</tr></table>`
  );
}

/**
 * The index of what did not pass, at the top: one entry per failing requirement (its id
 * linking to its failures, how many failures, its title), then the expected failures and
 * the inconclusive checks, each linking to its article.
 */
function indexHtml(result: RunResult): string {
  const failing = failedChecks(result);
  const expected = result.checks.filter(isExpectedFailure);
  const inconclusive = result.checks.filter((c) => c.status === 'inconclusive');
  if (failing.length + expected.length + inconclusive.length === 0) return '';
  const entry = (c: CheckResult, n: string) =>
    `<li title="${a(`${c.id}: ${c.title}`)}"><a href="#${a(c.id)}"><code>${e(c.id)}</code></a><span class="n">${n}</span><span class="title">${e(c.title)}</span></li>`;
  const list = (title: string, checks: readonly CheckResult[], n: (c: CheckResult) => string) =>
    checks.length === 0
      ? ''
      : `<h2>${title}</h2><ol>${checks.map((c) => entry(c, n(c))).join('')}</ol>`;
  const reqs = (k: number) => `${k} requirement${k === 1 ? '' : 's'}`;
  const total = failing.reduce((s, c) => s + failureCount(c), 0);
  return (
    '<nav id="index">' +
    list(
      `Failures by requirement (${reqs(failing.length)}, ${total} failure${total === 1 ? '' : 's'})`,
      failing,
      (c) =>
        result.staleExpectedFailures.includes(c.id)
          ? 'stale'
          : c.status === 'error'
            ? 'error'
            : String(failureCount(c)),
    ) +
    list(`Expected failures, not counted (${reqs(expected.length)})`, expected, (c) =>
      String(Math.max(1, failureCount(c))),
    ) +
    list(`Inconclusive (${reqs(inconclusive.length)})`, inconclusive, () => '?') +
    '</nav>'
  );
}

function areaTable(result: RunResult): string {
  const areas = [...new Set([...AREAS, ...result.checks.map((c) => c.area)])].filter((area) =>
    result.checks.some((c) => c.area === area),
  );
  // expected failures and inconclusive checks in columns of their own, when there are any
  type Column = readonly [string, (c: CheckResult) => boolean];
  const columns: Column[] = [
    ['pass', (c) => c.status === 'pass'],
    ['fail', (c) => c.status === 'fail' && c.expectedFailure === undefined],
    ...(result.checks.some(isExpectedFailure)
      ? [['expected failure', isExpectedFailure] as Column]
      : []),
    ...(result.checks.some((c) => c.status === 'inconclusive')
      ? [['inconclusive', (c: CheckResult) => c.status === 'inconclusive'] as Column]
      : []),
    ['error', (c) => c.status === 'error' && c.expectedFailure === undefined],
    ['skip', (c) => c.status === 'skip'],
  ];
  const cells = (area: string | undefined) =>
    columns
      .map(
        ([, p]) =>
          `<td>${result.checks.filter((c) => (area === undefined || c.area === area) && p(c)).length}</td>`,
      )
      .join('');
  const rows = areas
    .map(
      (area) =>
        `<tr><th title="${a(AREA_TITLES[area as Area] ?? 'custom checks')}">${e(area)}</th>${cells(area)}</tr>`,
    )
    .join('');
  return (
    `<table id="areas"><tr><th>area</th>${columns.map(([s]) => `<th>${s}</th>`).join('')}</tr>${rows}` +
    `<tr><th>total</th>${cells(undefined)}</tr></table>`
  );
}

function checkRows(checks: readonly CheckResult[]): string {
  return checks
    .map((c) => {
      const retried =
        c.retried === undefined
          ? ''
          : ` <a class="badge retried" href="#retried-${a(c.id)}">retried</a>`;
      const note = c.reason === undefined ? '' : `<br><small>${e(c.reason)}</small>`;
      return `<tr id="${a(c.id)}"><td><code>${e(c.id)}</code></td><td>${e(c.area)}</td><td class="${c.status}">${e(c.status)}${retried}</td><td>${e(c.title)} <small>[${e(c.clause)}]</small>${note}</td><td>${c.requests}</td><td>${Math.round(c.durationMs)}</td></tr>`;
    })
    .join('\n');
}

function collapsedChecks(title: string, checks: readonly CheckResult[], counted = false): string {
  if (checks.length === 0) return '';
  return (
    `<details class="checks"><summary>${e(title)}${counted ? '' : ` (${checks.length})`}</summary>` +
    `<table class="checklist"><colgroup><col style="width:22%"><col style="width:8%"><col style="width:7%"><col><col style="width:7%"><col style="width:6%"></colgroup>` +
    `<tr><th>requirement</th><th>area</th><th>status</th><th>what it checks</th><th>requests</th><th>ms</th></tr>\n${checkRows(checks)}</table></details>`
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
  return `<div class="scroll"><table class="matrix"><tr><th>requirement</th>${ids.map((id) => `<th>${e(id)}</th>`).join('')}</tr>\n${rows}</table></div>`;
}

/** One line per exchange: number, request, status, credential, time, the body's first characters. */
function exchangeRow(x: Exchange): string {
  const preview =
    x.body.length > PREVIEW_BODY_CHARS ? `${x.body.slice(0, PREVIEW_BODY_CHARS)}…` : x.body;
  return `<tr id="x${x.id}"><td>${x.id}</td><td>${e(x.method)} ${e(x.target)}</td><td>${x.status}</td><td>${e(x.credential ?? '-')}</td><td>${Math.round(x.durationMs)}</td><td>${e(preview)}</td></tr>`;
}

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
 *   line marked), the whole body and the headers collapsed; past {@link SHOWN_FINDINGS}
 *   failures of a check the rest are collapsed; the command that runs the check again;
 * - the expected failures and inconclusive checks the same way;
 * - the passing and skipped checks collapsed, the requirements-by-endpoint matrix collapsed,
 *   and one line per exchange (the first {@link LISTED_EXCHANGES}, bodies previewed,
 *   {@link PREVIEW_BODY_CHARS}; the HAR export has them all).
 * Authorization values are redacted ({@link redactHeaders}); every value is escaped with
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
