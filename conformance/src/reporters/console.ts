import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import { AREAS } from '../checks/define.ts';
import type { CheckResult, CheckStatus, RunEvent, RunResult } from '../runner.ts';
import { failureText } from './text.ts';

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
          `${r.status.toUpperCase().padEnd(5)} ${r.id}${r.reason && r.status === 'skip' ? ` (${r.reason})` : ''}\n`,
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
 * The end-of-run text: a table of statuses by requirement area, every failure in domain
 * words with its seed, counterexample and curl line, and the verdict with time and requests.
 */
export function formatSummary(result: RunResult, color = false): string {
  const c = pc.createColors(color);
  const out: string[] = [];
  const table = new Table({
    head: ['area', 'pass', 'fail', 'error', 'skip'],
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [] },
  });
  const areas = [...new Set([...AREAS, ...result.checks.map((x) => x.area)])];
  for (const area of areas) {
    const checks = result.checks.filter((x) => x.area === area);
    if (checks.length === 0) continue;
    const n = (s: CheckStatus) => checks.filter((x) => x.status === s).length;
    table.push([area, n('pass'), n('fail'), n('error'), n('skip')]);
  }
  const s = result.summary;
  table.push(['total', s.pass, s.fail, s.error, s.skip]);
  out.push(table.toString());

  const bad = result.checks.filter((x) => x.status === 'fail' || x.status === 'error');
  for (const r of bad) out.push('', describeFailure(r, c));
  for (const id of result.staleExpectedFailures)
    out.push(
      '',
      c.red(`STALE ${id}: listed in the expected-failures file but passed; remove the entry`),
    );
  const skips = result.checks.filter((x) => x.status === 'skip');
  if (skips.length > 0) {
    out.push('', c.dim(`skipped: ${skips.map((x) => `${x.id} (${x.reason})`).join('; ')}`));
  }
  out.push(
    '',
    `${result.checks.length} checks, ${s.pass} passed, ${s.fail} failed, ${s.error} errors, ${s.skip} skipped` +
      `${s.expectedFailures ? `, ${s.expectedFailures} expected failures` : ''}; ` +
      `${(result.durationMs / 1000).toFixed(1)} s, ${result.requests.sent} requests (${result.requests.cacheHits} cache hits); ` +
      `mode ${result.mode}, seed ${result.seed}, ${result.numRuns} runs per property`,
    result.ok ? c.green(c.bold('PASS')) : c.red(c.bold('FAIL')),
  );
  return out.join('\n');
}

function describeFailure(r: CheckResult, c: Colors): string {
  const head = `${paint(c, r.status, r.status.toUpperCase())} ${c.bold(r.id)}${r.expectedFailure !== undefined ? c.yellow(' (expected failure)') : ''}: ${r.title} [${r.clause}]`;
  const lines = [head];
  if (r.status === 'error') lines.push(`  error: ${r.reason}`);
  for (const f of r.failures.slice(0, 3)) lines.push(`  - ${failureText(f, '  ')}`);
  if (r.failures.length > 3) {
    const kinds = new Map<string, number>();
    for (const f of r.failures.slice(3)) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    const byKind = [...kinds].map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`  … and ${r.failures.length - 3} more (${byKind})`);
  }
  return lines.join('\n');
}
