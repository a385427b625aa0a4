import { ENDPOINT_LIST } from '@tagtrack/core';
import { escapeUTF8 } from 'entities';
import { AREA_TITLES, AREAS, type Area } from '../checks/define.ts';
import type { Exchange } from '../http.ts';
import type { CheckResult, RunResult } from '../runner.ts';
import { failureText, redactCurl } from './text.ts';

const e = (s: unknown): string => escapeUTF8(String(s));

/** Bodies longer than this are cut in the report (the full size is shown). */
const BODY_LIMIT = 4000;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24}
h1{margin:0 0 .3rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
.pass{background:#e6f4ea}.fail{background:#fde7e9}.error{background:#fbd3b6}.skip{background:#eee}.xfail{background:#fff4cc}
.verdict{font-size:1.2rem;font-weight:600}.matrix td{text-align:center;font-size:12px}.matrix th{font-size:11px}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.5rem;margin:.2rem 0}
details{margin:.2rem 0}summary{cursor:pointer}code{font-size:12px}
`;

function statusCell(c: CheckResult): string {
  const xfail = c.expectedFailure !== undefined && (c.status === 'fail' || c.status === 'error');
  return `<td class="${xfail ? 'xfail' : c.status}">${xfail ? `${c.status} (expected)` : c.status}</td>`;
}

function redactHeaders(h: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    out[k] = k.toLowerCase() === 'authorization' ? '<redacted>' : v;
  return out;
}

function exchangeHtml(x: Exchange): string {
  const body =
    x.body.length > BODY_LIMIT
      ? `${x.body.slice(0, BODY_LIMIT)}\n… (${x.body.length} characters)`
      : x.body;
  const headers = (h: Record<string, string>) =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  return (
    `<details id="x${x.id}"><summary><code>#${x.id} ${e(x.method)} ${e(x.target)} → ${x.status}` +
    `${x.credential === null ? '' : ` (as ${e(x.credential)})`} ${x.durationMs} ms</code></summary>` +
    `<pre>${e(`${x.method} ${x.url}\n${headers(redactHeaders(x.requestHeaders))}`)}</pre>` +
    `<pre>${e(`HTTP ${x.status}\n${headers(x.responseHeaders)}\n\n${body}`)}</pre></details>`
  );
}

/**
 * A self-contained HTML report of a run: verdict and summary by requirement area, every
 * check with its failures (kind, message, seed, counterexample, curl with the Authorization value
 * redacted), a requirements-by-endpoint coverage matrix, and every request and response
 * (Authorization header replaced by `<redacted>`). Every value is escaped with `entities`.
 */
export function toHtml(result: RunResult): string {
  const areas = [...new Set([...AREAS, ...result.checks.map((c) => c.area)])].filter((a) =>
    result.checks.some((c) => c.area === a),
  );
  const count = (a: string, s: string) =>
    result.checks.filter((c) => c.area === a && c.status === s).length;
  const summaryRows = areas
    .map(
      (a) =>
        `<tr><th title="${e(AREA_TITLES[a as Area] ?? '')}">${e(a)}</th><td>${count(a, 'pass')}</td><td>${count(a, 'fail')}</td><td>${count(a, 'error')}</td><td>${count(a, 'skip')}</td></tr>`,
    )
    .join('');
  const verdict = result.ok
    ? 'PASS: every required check passed'
    : 'FAIL: some required checks did not pass';
  const checks = result.checks
    .map((c) => {
      const failures = c.failures
        .map((f) => {
          const link =
            f.exchangeId === undefined
              ? ''
              : ` <a href="#x${f.exchangeId}">exchange #${f.exchangeId}</a>`;
          return `<pre>${e(redactCurl(failureText(f)))}</pre>${link}`;
        })
        .join('');
      const note = c.reason === undefined ? '' : `<div>${e(c.reason)}</div>`;
      const stale = result.staleExpectedFailures.includes(c.id)
        ? '<div class="fail">listed in the expected-failures file but passed: remove the entry</div>'
        : '';
      return `<tr id="${e(c.id)}"><td><code>${e(c.id)}</code></td><td>${e(c.area)}</td>${statusCell(c)}<td>${e(c.title)}<br><small>${e(c.clause)}</small>${note}${stale}${failures}</td><td>${c.requests}</td><td>${c.durationMs}</td></tr>`;
    })
    .join('\n');
  const endpointIds = ENDPOINT_LIST.map((x) => x.id);
  const matrix =
    `<tr><th>requirement</th>${endpointIds.map((id) => `<th>${e(id)}</th>`).join('')}</tr>` +
    result.checks
      .map(
        (c) =>
          `<tr><th><a href="#${e(c.id)}">${e(c.id)}</a></th>${endpointIds
            .map((id) =>
              c.endpoints.includes(id)
                ? `<td class="${c.status}">${e(c.status)}</td>`
                : '<td></td>',
            )
            .join('')}</tr>`,
      )
      .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tagtrack conformance report: ${e(result.ok ? 'PASS' : 'FAIL')}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>tagtrack conformance report</h1>
<section id="summary">
<p class="verdict ${result.ok ? 'pass' : 'fail'}">${e(verdict)}</p>
<p>Implementation <code>${e(result.baseUrl)}</code>, profile <code>${e(result.profile.name)}</code>, mode ${e(result.mode)},
seed ${result.seed}, ${result.numRuns} runs per property, started ${e(result.startedAt)}, ${result.durationMs} ms,
${result.requests.sent} requests sent (${result.requests.cacheHits} served from the run cache).</p>
<table><tr><th>area</th><th>pass</th><th>fail</th><th>error</th><th>skip</th></tr>${summaryRows}
<tr><th>total</th><td>${result.summary.pass}</td><td>${result.summary.fail}</td><td>${result.summary.error}</td><td>${result.summary.skip}</td></tr></table>
<p>${result.summary.expectedFailures} expected failures; ${result.staleExpectedFailures.length} stale expected-failure entries${result.staleExpectedFailures.length ? `: ${e(result.staleExpectedFailures.join(', '))}` : ''}.</p>
</section>
<h2>Checks</h2>
<table><tr><th>requirement</th><th>area</th><th>status</th><th>details</th><th>requests</th><th>ms</th></tr>
${checks}
</table>
<h2>Coverage: requirements by endpoint</h2>
<table class="matrix">${matrix}</table>
<h2>Requests and responses (${result.exchanges.length})</h2>
<p>Authorization headers are redacted.</p>
${result.exchanges.map(exchangeHtml).join('\n')}
</body>
</html>
`;
}
