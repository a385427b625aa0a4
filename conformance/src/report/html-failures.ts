/**
 * The failure articles of the HTML report: each failing, errored, stale, expected or
 * inconclusive check with its failures (message, details, the exchange that shows it, its
 * body windowed around the field the message names), the checks that needed retries
 * (transport faults are not verdicts, spec §11), and the command that runs a check again.
 */
import { coverageWords } from '../check/coverage.ts';
import type { Failure } from '../check/failure.ts';
import type { Exchange } from '../http/client.ts';
import { runAgainCommand } from '../http/rerun.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';
import { bodyView } from './body.ts';
import { redactHeaders } from './har.ts';
import { a, e } from './html-escape.ts';
import { failureText } from './text.ts';
import { isExpectedFailure } from './verdict.ts';

/** Characters of a body shown from its start (collapsed) under a failure's window of it; the rest is cut. */
export const FAILURE_BODY_CHARS = 2000;

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
export const failureCount = (c: CheckResult) =>
  c.failures.reduce((n, f) => n + 1 + (f.kind === 'summary' ? 0 : (f.repeats ?? 0)), 0);

/** A failing (or errored, or stale, or expected) check with its failures. */
export function failedCheckHtml(
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
    `${why}${retriedHtml(c)}${sampledHtml(c)}${findingsHtml(c, exchanges)}` +
    `<p class="meta">check seed ${c.seed}; run it again: <code>${e(rerunCommand(result, c.id))}</code></p></article>`
  );
}

/** What a check verified of the lists it sampled, one line; `''` when it sampled none. */
export function sampledHtml(c: CheckResult): string {
  if (c.coverage === undefined) return '';
  return `<p class="meta coverage">Coverage: ${e(c.coverage.map(coverageWords).join('; '))}</p>`;
}

/**
 * The checks that verified a seeded sample of a list longer than the run's bound
 * (`--sample-above`) or of the callers (`--max-callers`), with what each verified; `''` when
 * none sampled.
 */
export function sampledSection(result: RunResult): string {
  const checks = result.checks.filter((c) => c.coverage !== undefined);
  if (checks.length === 0) return '';
  return `<section id="sampled"><h2>Sampled (${checks.length} check${checks.length === 1 ? '' : 's'})</h2>
<p class="meta">Lists longer than the run's bound (--sample-above) were verified on a seeded sample, and with more distinct callers declared than --max-callers the checks ran as a seeded sample of them: the same seed verifies the same records as the same callers. A pass covers what was verified.</p>
<ul>${checks.map((c) => `<li><span class="badge ${c.status}">${c.status.toUpperCase()}</span> <a href="#${a(c.id)}"><code>${e(c.id)}</code></a>: ${e(c.coverage!.map(coverageWords).join('; '))}</li>`).join('')}</ul></section>`;
}

/** A check's requests answered after retries (transport faults), as a list; `''` when none. */
export function retriedHtml(c: CheckResult): string {
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
 * The checks that needed retries (transport faults are not verdicts, spec §11), each
 * with its status and its retried requests; `''` when none.
 */
export function retriedSection(result: RunResult): string {
  const checks = result.checks.filter((c) => c.retried !== undefined);
  if (checks.length === 0) return '';
  return `<section id="retried"><h2>Retried (${checks.length} check${checks.length === 1 ? '' : 's'}, ${result.requests.retried ?? 0} requests)</h2>
<p>These checks needed retries of requests that timed out, had their connection reset or got a 502, 503 or 504 (<code>--retries ${result.requests.retries ?? '?'}</code>). Transport faults are not verdicts: each check passed or failed on the answers it got.</p>
${checks.map((c) => `<article class="retried" id="retried-${a(c.id)}"><h3><span class="badge ${c.status}">${c.status.toUpperCase()}</span> <code>${e(c.id)}</code> ${e(c.title)}</h3>${retriedHtml(c)}</article>`).join('\n')}</section>`;
}

/** An inconclusive check: what moved, how often it ran, the command that runs it again. */
export function inconclusiveHtml(c: CheckResult, result: RunResult): string {
  return (
    `<article class="failure inconclusive" id="${a(c.id)}">` +
    `<h3><span class="badge inconclusive">INCONCLUSIVE</span> <code>${e(c.id)}</code> ${e(c.title)} <small>[${e(c.clause)}]</small></h3>` +
    `<p class="message">${e(c.reason ?? 'the data changed during every run')}</p>` +
    `<p class="meta">${c.attempts ?? 1} runs, ${c.requests} requests; check seed ${c.seed}; run it again: <code>${e(rerunCommand(result, c.id))}</code></p></article>`
  );
}
