// Preloaded into the suite's process by bench/event-loop.bench.ts (`--import`): measures how
// long the event loop is held up while the run goes on, and writes the figures as JSON to
// $EVENT_LOOP_PROBE_OUT when the process exits (SIGTERM and SIGINT included: the suite's own
// handlers end the process, the `exit` listener still runs).
//
// - monitorEventLoopDelay (node:perf_hooks, 10 ms resolution): max, p99, p50 and mean delay;
// - stalls: a 10 ms interval timer that fires more than 100 ms late marks a synchronous
//   stretch (or the process descheduled) of that length; their count and the longest;
// - busy stalls: of those, the ones in which the process itself used more than 100 ms of CPU
//   (process.cpuUsage, all its threads): on a machine shared with other work a stall also
//   counts the time the process waited for a core, which busy stalls leave out.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.env.EVENT_LOOP_PROBE_OUT;
const STALL_MS = 100;
const TICK_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: TICK_MS });
histogram.enable();
const stalls = [];
const busy = [];
let last = performance.now();
let lastCpu = process.cpuUsage();
const ticker = setInterval(() => {
  const now = performance.now();
  const cpu = process.cpuUsage();
  const late = now - last - TICK_MS;
  if (late > STALL_MS) {
    stalls.push(Math.round(late));
    const used = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    if (used > STALL_MS) busy.push(Math.round(used));
  }
  last = now;
  lastCpu = cpu;
}, TICK_MS);
ticker.unref();
const ms = (ns) => Math.round((ns / 1e6) * 10) / 10;
process.on('exit', () => {
  histogram.disable();
  if (out === undefined) return;
  writeFileSync(
    out,
    JSON.stringify({
      maxMs: ms(histogram.max),
      p99Ms: ms(histogram.percentile(99)),
      p50Ms: ms(histogram.percentile(50)),
      meanMs: ms(histogram.mean),
      stallsOver100Ms: stalls.length,
      longestStallMs: stalls.length === 0 ? 0 : Math.max(...stalls),
      busyStallsOver100Ms: busy.length,
      longestBusyStallCpuMs: busy.length === 0 ? 0 : Math.max(...busy),
      stalls: stalls.sort((a, b) => b - a).slice(0, 20),
      busyStalls: busy.sort((a, b) => b - a).slice(0, 20),
    }),
  );
});
