import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import { coverageWords } from '../check/coverage.ts';
import { AREAS } from '../check/define.ts';
import type { CheckResult, CheckStatus, RunEvent, RunResult } from '../run/runner.ts';
import { failureText } from './text.ts';
import { isExpectedFailure, verdictOf } from './verdict.ts';

type Colors = ReturnType<typeof pc.createColors>;

/** Whether to draw progress bars on `stream` (a TTY and NO_COLOR unset). */
export function isFancy(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && process.env.NO_COLOR === undefined;
}

/**
 * Whether to colour what goes to `stream`: never with a non-empty NO_COLOR; always with
 * FORCE_COLOR (unless it is `0` or `false`); otherwise on a TTY whose TERM is not `dumb`.
 */
export function useColor(
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

function paint(c: Colors, status: CheckStatus, text: string): string {
  switch (status) {
    case 'pass':
      return c.green(text);
    case 'fail':
      return c.red(text);
    case 'error':
      return c.magenta(text);
    case 'inconclusive':
      return c.yellow(text);
    default:
      return c.dim(text);
  }
}

/**
 * Live progress of a run: on a TTY (and without NO_COLOR) one cli-progress bar per
 * requirement area; otherwise one plain line per finished check.
 */
export function progressReporter(
  stream: NodeJS.WriteStream = process.stderr,
): (event: RunEvent) => void {
  const fancy = isFancy(stream);
  const c = pc.createColors(useColor(stream));
  let multi: cliProgress.MultiBar | undefined;
  const bars = new Map<string, cliProgress.SingleBar>();
  return (event) => {
    if (event.type === 'start') {
      if (!fancy) {
        stream.write(`running ${event.checks.length} checks\n`);
        return;
      }
      multi = new cliProgress.MultiBar(
        {
          stream,
          format: ' {area} |{bar}| {value}/{total} {last}',
          hideCursor: true,
          clearOnComplete: false,
          barsize: 24,
        },
        cliProgress.Presets.shades_classic,
      );
      // built-in areas in report order, then the areas of checks of your own
      for (const area of new Set([...AREAS, ...event.checks.map((x) => x.area)])) {
        const n = event.checks.filter((x) => x.area === area).length;
        if (n > 0) bars.set(area, multi.create(n, 0, { area: area.padEnd(10), last: '' }));
      }
    } else if (event.type === 'check') {
      const r = event.result;
      if (multi === undefined) {
        stream.write(
          `${r.status.toUpperCase().padEnd(5)} ${r.id}${r.reason && (r.status === 'skip' || r.status === 'inconclusive') ? ` (${r.reason})` : ''}${r.retried === undefined ? '' : ` (retried: ${retriedWords(r)})`}${r.coverage === undefined ? '' : ` (${sampledWords(r)})`}\n`,
        );
      } else {
        bars.get(r.area)?.increment({ last: paint(c, r.status, `${r.id} ${r.status}`) });
      }
    } else {
      multi?.stop();
    }
  };
}

/**
 * The end-of-run text: a table of statuses by requirement area (a column `xfail` when a check
 * failed as expected, `inconcl.` when a check was inconclusive), every failure in domain
 * words with its seed, counterexample and reproduce line (an expected failure marked so),
 * every inconclusive check with what moved, the skipped checks, what was not checked (skips
 * counted by reason, inconclusive checks, expected failures), the counts (expected failures
 * apart from failures) with time and requests, and the verdict ({@link verdictOf}: `FAIL`,
 * `PASS`, or e.g. `PASS (blind, 16 skipped)` in yellow).
 */
export function formatSummary(result: RunResult, color = false): string {
  const c = pc.createColors(color);
  const out: string[] = [];
  const v = verdictOf(result);
  const n = v.counts;
  type Column = readonly [string, (x: CheckResult) => boolean];
  const columns: Column[] = [
    ['pass', (x) => x.status === 'pass'],
    ['fail', (x) => x.status === 'fail' && x.expectedFailure === undefined],
    ...(n.expectedFailures > 0 ? [['xfail', isExpectedFailure] as Column] : []),
    ...(n.inconclusive > 0
      ? [['inconcl.', (x: CheckResult) => x.status === 'inconclusive'] as Column]
      : []),
    ['error', (x) => x.status === 'error' && x.expectedFailure === undefined],
    ['skip', (x) => x.status === 'skip'],
  ];
  const table = new Table({
    head: ['area', ...columns.map(([h]) => h)],
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [] },
  });
  const areas = [...new Set([...AREAS, ...result.checks.map((x) => x.area)])];
  const row = (checks: readonly CheckResult[]) => columns.map(([, p]) => checks.filter(p).length);
  for (const area of areas) {
    const checks = result.checks.filter((x) => x.area === area);
    if (checks.length === 0) continue;
    table.push([area, ...row(checks)]);
  }
  const inconclusive = result.checks.filter((x) => x.status === 'inconclusive');
  table.push(['total', ...row(result.checks)]);
  out.push(table.toString());

  // the failures that count first, then the expected ones
  const bad = result.checks.filter(
    (x) => (x.status === 'fail' || x.status === 'error') && x.expectedFailure === undefined,
  );
  for (const r of [...bad, ...result.checks.filter(isExpectedFailure)])
    out.push('', describeFailure(r, c));
  for (const id of result.staleExpectedFailures)
    out.push(
      '',
      c.red(`STALE ${id}: listed in the expected-failures file but passed; remove the entry`),
    );
  for (const r of inconclusive)
    out.push(
      '',
      `${c.yellow('INCONCLUSIVE')} ${c.bold(r.id)}: ${r.title} [${r.clause}]\n  ${r.reason}`,
    );
  const skips = result.checks.filter((x) => x.status === 'skip');
  if (skips.length > 0) {
    out.push('', c.dim(`skipped: ${skips.map((x) => `${x.id} (${x.reason})`).join('; ')}`));
  }
  const retried = result.checks.filter((x) => x.retried !== undefined);
  if (retried.length > 0) out.push('', retriedSection(retried, result, c));
  const sampled = result.checks.filter((x) => x.coverage !== undefined);
  if (sampled.length > 0) out.push('', sampledSection(sampled, c));
  const data = result.data;
  if (data?.moved !== undefined)
    out.push(
      '',
      `data: ${data.moved} during the run; ${data.rerunChecks} failing checks ran again (${data.reruns} runs, ${data.watermarkRequests} watermark requests)`,
    );
  if (data?.note !== undefined) out.push('', c.dim(`data: ${data.note}`));
  if (inconclusive.length > 0)
    out.push(
      '',
      c.yellow(
        c.bold(
          `INCONCLUSIVE: ${inconclusive.length} check${inconclusive.length === 1 ? '' : 's'} could not be judged: the data changed during each of their runs, so no answer read on still data shows whether they conform (spec §5 Revision 3). They neither pass nor fail; run them again when the data is quieter, or with more --attempts.`,
        ),
      ),
    );
  if (v.notChecked !== undefined) out.push('', c.yellow(`not checked: ${v.notChecked}`));
  out.push(
    '',
    `${n.total} checks, ${n.pass} passed, ${n.fail} failed, ${n.inconclusive > 0 ? `${n.inconclusive} inconclusive, ` : ''}${n.error} errors, ${n.skip} skipped` +
      `${n.expectedFailures ? `, ${n.expectedFailures} expected failure${n.expectedFailures === 1 ? '' : 's'} (not counted as failures)` : ''}; ` +
      `${(result.durationMs / 1000).toFixed(1)} s, ${result.requests.sent} requests (${result.requests.cacheHits} cache hits${result.requests.retried ? `, ${result.requests.retried} answered after retries` : ''}); ` +
      `mode ${result.mode}${result.data === undefined ? '' : `, data ${result.data.mode}`}, seed ${result.seed}, ${result.numRuns} runs per property`,
    v.tone === 'fail'
      ? c.red(c.bold(v.line))
      : v.tone === 'partial'
        ? c.yellow(c.bold(v.line))
        : c.green(c.bold(v.line)),
  );
  return out.join('\n');
}

/** A check's coverage of the lists it sampled: `verified 5,000 of 48,113 contacts (seeded sample)`. */
function sampledWords(r: CheckResult): string {
  return (r.coverage ?? []).map(coverageWords).join('; ');
}

/**
 * The checks that verified a seeded sample of a list longer than the run's bound
 * (`--sample-above`) or of the callers over `--max-callers`, each with what it verified: a
 * pass there covers the sample only.
 */
function sampledSection(checks: readonly CheckResult[], c: Colors): string {
  return [
    c.bold(
      `SAMPLED (${checks.length} checks verified seeded samples of long lists or of callers; --sample-above, --max-callers)`,
    ),
    ...checks.map((x) => `  ${x.status.toUpperCase().padEnd(5)} ${x.id}: ${sampledWords(x)}`),
  ].join('\n');
}

/** Most retried requests the console lists (results.json and report.html list them all). */
const RETRIED_LINES = 20;

/** A check's retried requests in a few words: `2 requests after transport faults`. */
function retriedWords(r: CheckResult): string {
  const n = r.retried?.length ?? 0;
  return `${n} request${n === 1 ? '' : 's'} answered after transport faults`;
}

/**
 * The checks marked as having retried, and their retried requests (transport faults are not
 * verdicts: each verdict rests on the answers the check got).
 */
function retriedSection(checks: readonly CheckResult[], result: RunResult, c: Colors): string {
  const requests = new Set(checks.flatMap((x) => (x.retried ?? []).map((q) => q.exchangeId)));
  const lines = [
    c.yellow(
      `RETRIED: ${checks.length} check${checks.length === 1 ? '' : 's'} needed retries of ${requests.size} request${requests.size === 1 ? '' : 's'} (timeouts, reset connections, 502/503/504; --retries ${result.requests.retries ?? '?'}). Transport faults are not verdicts: each check passed or failed on the answers it got.`,
    ),
  ];
  let shown = 0;
  let more = 0;
  for (const x of checks)
    for (const q of x.retried ?? []) {
      if (shown >= RETRIED_LINES) {
        more++;
        continue;
      }
      shown++;
      lines.push(
        `  ${x.id} (${x.status}): ${q.method} ${q.target}: answered on try ${q.tries} after ${q.causes.join(', ')}`,
      );
    }
  if (more > 0) lines.push(c.dim(`  … and ${more} more (results.json, report.html)`));
  return lines.join('\n');
}

function describeFailure(r: CheckResult, c: Colors): string {
  const head = isExpectedFailure(r)
    ? `${c.yellow(`EXPECTED ${r.status.toUpperCase()}`)} ${c.bold(r.id)}: ${r.title} [${r.clause}] ${c.yellow(`(listed in the expected-failures file${r.expectedFailure ? `: ${r.expectedFailure}` : ''}; not counted)`)}`
    : `${paint(c, r.status, r.status.toUpperCase())} ${c.bold(r.id)}: ${r.title} [${r.clause}]`;
  const lines = [head];
  if (r.status === 'error') lines.push(`  error: ${r.reason}`);
  else if (r.attempts !== undefined && r.reason !== undefined) lines.push(`  ${r.reason}`);
  if (r.retried !== undefined) lines.push(`  retried: ${retriedWords(r)} (see RETRIED below)`);
  if (r.coverage !== undefined) lines.push(`  ${sampledWords(r)}`);
  for (const f of r.failures.slice(0, 3)) lines.push(`  - ${failureText(f, '  ')}`);
  if (r.failures.length > 3) {
    const kinds = new Map<string, number>();
    for (const f of r.failures.slice(3)) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    const byKind = [...kinds].map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`  … and ${r.failures.length - 3} more (${byKind})`);
  }
  return lines.join('\n');
}
