/**
 * `pnpm demo`: starts the reference server in-process on the canonical dataset (a real
 * socket on 127.0.0.1), runs the suite in fixture mode, prints the summary, writes
 * results.json, junit.xml, report.html, summary.md and exchanges.har (HAR 1.2) to `reports/`, and exits
 * 0 when everything passed.
 * A repository script, not part of the published package (it needs the private reference
 * server, a devDependency).
 */
import { join, resolve } from 'node:path';
import { createServer } from '@tagtrack/server';
import { canonicalProfile } from './profile/fixtures.ts';
import {
  formatSummary,
  progressReporter,
  useColor,
  writeHar,
  writeReports,
} from './report/index.ts';
import { runConformance } from './run/runner.ts';

const server = createServer();
const baseUrl = await server.listen(0, '127.0.0.1');
process.stdout.write(`reference server on ${baseUrl} (canonical dataset)\n`);
try {
  const result = await runConformance({
    baseUrl,
    profile: canonicalProfile(),
    mode: 'fixture',
    onEvent: progressReporter(process.stderr),
  });
  process.stdout.write(`${formatSummary(result, useColor(process.stdout))}\n`);
  const dir = resolve(process.env.INIT_CWD ?? process.cwd(), 'reports');
  const paths = await writeReports(result, dir);
  const har = join(dir, 'exchanges.har');
  await writeHar(result, har);
  paths.push(har);
  process.stdout.write(`reports: ${paths.join(', ')}\n`);
  process.exitCode = result.ok ? 0 : 1;
} finally {
  await server.close();
}
