/**
 * The top of the HTML report: the line on how the run watched its data, the counts in one
 * row, the index of what did not pass (linking to the failure articles) and the table by area.
 */
import { AREA_TITLES, AREAS, type Area } from '../check/define.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';
import { a, e } from './html-escape.ts';
import { failureCount } from './html-failures.ts';
import { countsOf, failedChecks, isExpectedFailure } from './verdict.ts';

/** How the run watched its data (spec §5 Revision 3), when a watermark moved or could not be read. */
export function dataLine(result: RunResult): string {
  const d = result.data;
  if (d === undefined || (d.moved === undefined && d.note === undefined)) return '';
  const text =
    d.moved !== undefined
      ? `Data (--data ${d.mode}): ${d.moved} during the run; ${d.rerunChecks} failing checks ran again (${d.reruns} runs, ${d.watermarkRequests} watermark requests).`
      : `Data (--data ${d.mode}): ${d.note}.`;
  return `<p class="meta">${e(text)}</p>`;
}

/** The run's counts in one row: each check in one column (expected failures apart). */
export function countsTable(result: RunResult): string {
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
export function indexHtml(result: RunResult): string {
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

/** The checks by area: one row per area with checks, a column per status, the total below. */
export function areaTable(result: RunResult): string {
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
