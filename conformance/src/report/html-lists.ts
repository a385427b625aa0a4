/**
 * The lists at the bottom of the HTML report: the passing and skipped checks (collapsed),
 * the requirements-by-endpoint matrix and one line per exchange with its body previewed.
 */
import { ENDPOINT_LIST } from '@tagtrack/core';
import { coverageWords } from '../check/coverage.ts';
import type { Exchange } from '../http/client.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';
import { a, e } from './html-escape.ts';

/**
 * Characters of a body previewed in the list of requests and responses. Small on purpose: a
 * passing run of the whole suite (about 3,000 exchanges) stays under 1 MB; every body as the
 * suite kept it is in the HAR export (`--har FILE`).
 */
export const PREVIEW_BODY_CHARS = 60;

/** One table row per check: id, area, status (linking to its retries), title, requests, ms. */
function checkRows(checks: readonly CheckResult[]): string {
  return checks
    .map((c) => {
      const retried =
        c.retried === undefined
          ? ''
          : ` <a class="badge retried" href="#retried-${a(c.id)}">retried</a>`;
      const note = c.reason === undefined ? '' : `<br><small>${e(c.reason)}</small>`;
      const sampled =
        c.coverage === undefined
          ? ''
          : `<br><small class="coverage">${e(c.coverage.map(coverageWords).join('; '))}</small>`;
      return `<tr id="${a(c.id)}"><td><code>${e(c.id)}</code></td><td>${e(c.area)}</td><td class="${c.status}">${e(c.status)}${retried}</td><td>${e(c.title)} <small>[${e(c.clause)}]</small>${note}${sampled}</td><td>${c.requests}</td><td>${Math.round(c.durationMs)}</td></tr>`;
    })
    .join('\n');
}

/** A list of checks collapsed under `title` (counted unless `counted`); `''` when none. */
export function collapsedChecks(
  title: string,
  checks: readonly CheckResult[],
  counted = false,
): string {
  if (checks.length === 0) return '';
  return (
    `<details class="checks"><summary>${e(title)}${counted ? '' : ` (${checks.length})`}</summary>` +
    `<table class="checklist"><colgroup><col style="width:22%"><col style="width:8%"><col style="width:7%"><col><col style="width:7%"><col style="width:6%"></colgroup>` +
    `<tr><th>requirement</th><th>area</th><th>status</th><th>what it checks</th><th>requests</th><th>ms</th></tr>\n${checkRows(checks)}</table></details>`
  );
}

/** Which requirement reads which endpoint, coloured by the check's status. */
export function matrix(result: RunResult): string {
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
export function exchangeRow(x: Exchange): string {
  const preview =
    x.body.length > PREVIEW_BODY_CHARS ? `${x.body.slice(0, PREVIEW_BODY_CHARS)}…` : x.body;
  return `<tr id="x${x.id}"><td>${x.id}</td><td>${e(x.method)} ${e(x.target)}</td><td>${x.status}</td><td>${e(x.credential ?? '-')}</td><td>${Math.round(x.durationMs)}</td><td>${e(preview)}</td></tr>`;
}
