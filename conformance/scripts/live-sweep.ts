/**
 * The live sweep (`pnpm live-sweep` at the root): the suite blind against the live reference
 * server (records appended while it reads, spec §5 Revision 3), to show that no check
 * fails on data that moves and what the watermark's reruns cost.
 *
 *   pnpm live-sweep [--rates 0.05,1,10,50] [--seeds 1,2,3] [--num-runs 5] [--socket]
 *   pnpm live-sweep --faults [--rates 1,10] [--seeds 7|all] [--fault NAME ...]
 *   either with [--engine pglite | --database-url postgres://…]
 *
 * Default: every rate × seed × caller (team1-admin alone; the canonical profile's 12
 * credentials) in memory (`createServer({ live })`, what is due appended before each answer);
 * `--socket` runs the same against `tagtrack-server --live RATE --live-seed SEED --port 0` in
 * a child process over HTTP instead. Prints one row per run (records appended, checks
 * passed/failed/inconclusive/errors, checks run again, requests and watermark requests,
 * seconds) and exits 1 when any check failed.
 *
 * `--faults`: every fault blind mode is declared to catch (the fault matrix's), blind as
 * team1-admin narrowed to the fault's declared ids, on still data and at each rate (default
 * 1 and 10; suite seed 7, the matrix's first, or its three with `--seeds all`). Prints per
 * fault whether it was caught at each rate, and requests and seconds against still data; exits
 * 1 when a fault was missed (a suite bug: a check that fails only on still data).
 *
 * `--engine pglite` or `--database-url URL`: the server answers from the SQL engine (embedded
 * PGlite, or that PostgreSQL database, whose tables are replaced by the canonical dataset's
 * at each run), the appended records INSERTed and kept by the database's triggers. A fault
 * the SQL engine cannot serve (a store fault, which wraps the in-memory index) is listed
 * as not applicable.
 */
import { parseArgs } from 'node:util';
import type { FaultName } from '@tagtrack/server';
import { SEEDS } from '../test/fault-matrix.ts';
import {
  blindFaults,
  LIVE_RATES,
  LIVE_SEEDS,
  type LiveCaller,
  type LiveEngineChoice,
  type LiveFaultRow,
  type LiveRunRow,
  liveFaultRun,
  liveRun,
  liveSocketRun,
} from '../test/live-runs.ts';

const { values } = parseArgs({
  options: {
    rates: { type: 'string' },
    seeds: { type: 'string' },
    'num-runs': { type: 'string' },
    socket: { type: 'boolean', default: false },
    faults: { type: 'boolean', default: false },
    fault: { type: 'string', multiple: true },
    engine: { type: 'string' },
    'database-url': { type: 'string' },
  },
});

if (values.engine !== undefined && values.engine !== 'memory' && values.engine !== 'pglite') {
  console.error(`live-sweep: --engine takes memory or pglite, got '${values.engine}'`);
  process.exit(2);
}
if (values['database-url'] !== undefined && values.engine !== undefined) {
  console.error(
    'live-sweep: --database-url answers from that PostgreSQL database: give no --engine',
  );
  process.exit(2);
}
const engine: LiveEngineChoice =
  values['database-url'] !== undefined
    ? { kind: 'postgres', url: values['database-url'] }
    : { kind: values.engine === 'pglite' ? 'pglite' : 'memory' };
const engineName = engine.kind === 'postgres' ? 'postgres' : engine.kind;

/** A comma-separated list of positive numbers, or exit 2 naming the option. */
function numbers(option: string, text: string, integer: boolean): number[] {
  const list = text.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((n) => !(n > 0) || (integer && !Number.isSafeInteger(n)))) {
    console.error(
      `live-sweep: --${option} takes comma-separated ${integer ? 'integers' : 'numbers'} > 0, got '${text}'`,
    );
    process.exit(2);
  }
  return list;
}

const rates = numbers(
  'rates',
  values.rates ?? (values.faults ? '1,10' : LIVE_RATES.join(',')),
  false,
);
const seeds =
  values.seeds === 'all'
    ? values.faults
      ? [...SEEDS]
      : [...LIVE_SEEDS]
    : numbers(
        'seeds',
        values.seeds ?? (values.faults ? String(SEEDS[0]) : LIVE_SEEDS.join(',')),
        true,
      );
const numRuns =
  values['num-runs'] === undefined ? undefined : numbers('num-runs', values['num-runs'], true)[0];

/** Text columns padded to their widest cell, numbers right-aligned. */
function table(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [head, ...rows].map((r) => r.map(String));
  const widths = head.map((_h, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r, k) =>
      r
        .map((c, i) =>
          k > 0 && typeof rows[k - 1]![i] === 'number'
            ? c.padStart(widths[i]!)
            : c.padEnd(widths[i]!),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const started = Date.now();

if (!values.faults) {
  const callers: LiveCaller[] = ['team1-admin', 'canonical'];
  const rows: LiveRunRow[] = [];
  console.log(
    `live sweep (${values.socket ? 'tagtrack-server over HTTP' : 'in process'}, engine ${engineName}): rates ${rates.join(', ')} records/s, seeds ${seeds.join(', ')}, ${numRuns ?? 5} runs per property`,
  );
  for (const rate of rates) {
    for (const seed of seeds) {
      for (const caller of callers) {
        const run = values.socket ? liveSocketRun : liveRun;
        const row = await run({ rate, seed, caller, numRuns: numRuns ?? 5, engine });
        rows.push(row);
        console.log(
          `rate ${rate}/s seed ${seed} ${caller}: ${row.appended} appended, ${row.passed} passed, ${row.failed} failed, ${row.inconclusive} inconclusive, ${row.errors} errors, ${row.rerunChecks} rerun, ${row.requests} requests, ${row.seconds.toFixed(1)} s${row.problems.map((p) => `\n  ${p}`).join('')}`,
        );
      }
    }
  }
  console.log(
    `\n${table(
      [
        'rate/s',
        'seed',
        'caller',
        'appended',
        'passed',
        'failed',
        'inconcl.',
        'errors',
        'rerun',
        'requests (watermark)',
        'seconds',
      ],
      rows.map((r) => [
        r.rate,
        r.seed,
        r.caller,
        r.appended,
        r.passed,
        r.failed,
        r.inconclusive,
        r.errors,
        r.rerunChecks,
        `${r.requests} (${r.watermarkRequests})`,
        r.seconds.toFixed(1),
      ]),
    )}`,
  );
  const failed = rows.filter((r) => r.failed > 0);
  console.log(
    `\n${rows.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s; ${failed.length} with a failed check; inconclusive per rate: ${rates
      .map(
        (rate) =>
          `${rate}/s ${rows.filter((r) => r.rate === rate).reduce((n, r) => n + r.inconclusive, 0)}`,
      )
      .join(', ')}`,
  );
  process.exit(failed.length === 0 ? 0 : 1);
}

// --faults
const names = values.fault ?? blindFaults().map((f) => f.name);
const known = new Set(blindFaults().map((f) => f.name));
for (const n of names) {
  if (!known.has(n)) {
    console.error(`live-sweep: --fault ${n} is not a fault blind mode is declared to catch`);
    process.exit(2);
  }
}
console.log(
  `live faults (engine ${engineName}): ${names.length} faults blind as team1-admin, still data and rates ${rates.join(', ')} records/s, suite seeds ${seeds.join(', ')}`,
);
const missed: string[] = [];
const notApplicable: string[] = [];
const byFault: { fault: string; still: LiveFaultRow[]; live: LiveFaultRow[][] }[] = [];
faults: for (const fault of names as FaultName[]) {
  const still: LiveFaultRow[] = [];
  const live: LiveFaultRow[][] = rates.map(() => []);
  for (const seed of seeds) {
    const s = await liveFaultRun({ fault, rate: undefined, seed, numRuns, engine });
    if (s === undefined) {
      notApplicable.push(fault);
      console.log(`${fault}: not applicable (the ${engineName} engine cannot serve it)`);
      continue faults;
    }
    still.push(s);
    if (!s.caught)
      missed.push(`${fault} on still data, seed ${seed}: failing ${s.failed.join(', ') || 'none'}`);
    for (const [i, rate] of rates.entries()) {
      const r = (await liveFaultRun({ fault, rate, seed, numRuns, engine }))!;
      live[i]!.push(r);
      if (!r.caught) {
        missed.push(
          `${fault} at ${rate}/s, seed ${seed}: declared ${r.declared.join(', ')}; failing ${r.failed.join(', ') || 'none'}${r.problems.map((p) => `\n    ${p}`).join('')}`,
        );
      }
    }
  }
  byFault.push({ fault, still, live });
  const sum = (rows: LiveFaultRow[], f: (r: LiveFaultRow) => number) =>
    rows.reduce((n, r) => n + f(r), 0);
  console.log(
    `${fault}: still ${sum(still, (r) => r.requests)} requests ${sum(still, (r) => r.seconds).toFixed(2)} s; ${rates
      .map(
        (rate, i) =>
          `${rate}/s ${live[i]!.every((r) => r.caught) ? 'caught' : 'MISSED'} ${sum(live[i]!, (r) => r.requests)} requests ${sum(live[i]!, (r) => r.seconds).toFixed(2)} s (${sum(live[i]!, (r) => r.rerunChecks)} rerun, ${sum(live[i]!, (r) => r.inconclusive.length)} inconclusive, ${sum(live[i]!, (r) => r.appended)} appended)`,
      )
      .join('; ')}`,
  );
}
const total = (pick: (f: (typeof byFault)[number]) => LiveFaultRow[]) => {
  const rows = byFault.flatMap(pick);
  return {
    requests: rows.reduce((n, r) => n + r.requests, 0),
    seconds: rows.reduce((n, r) => n + r.seconds, 0),
    rerun: rows.reduce((n, r) => n + r.rerunChecks, 0),
    inconclusive: rows.reduce((n, r) => n + r.inconclusive.length, 0),
    caught: byFault.filter((f) => pick(f).every((r) => r.caught)).length,
  };
};
const still = total((f) => f.still);
console.log(
  `\n${table(
    ['data', 'faults caught', 'requests', 'vs still', 'seconds', 'vs still', 'rerun', 'inconcl.'],
    [
      [
        'still',
        `${still.caught}/${byFault.length}`,
        still.requests,
        '',
        still.seconds.toFixed(1),
        '',
        still.rerun,
        still.inconclusive,
      ],
      ...rates.map((rate, i) => {
        const t = total((f) => f.live[i]!);
        return [
          `${rate}/s`,
          `${t.caught}/${byFault.length}`,
          t.requests,
          `${((t.requests / still.requests - 1) * 100).toFixed(0)}%`,
          t.seconds.toFixed(1),
          `${((t.seconds / still.seconds - 1) * 100).toFixed(0)}%`,
          t.rerun,
          t.inconclusive,
        ];
      }),
    ],
  )}`,
);
console.log(
  `\n${byFault.length} faults in ${((Date.now() - started) / 1000).toFixed(0)} s${notApplicable.length > 0 ? ` (${notApplicable.length} not applicable to the ${engineName} engine: ${notApplicable.join(', ')})` : ''}; ${missed.length === 0 ? 'none missed' : `MISSED:\n  ${missed.join('\n  ')}`}`,
);
process.exit(missed.length === 0 ? 0 : 1);
