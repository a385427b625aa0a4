/**
 * The store-layer faults of the reference server (`FAULTS` whose implementation wraps the
 * store: wrong counters, contacts, windows, scoping of the answers) caught in blind mode at a
 * size beyond the canonical one: for each, a server over a generated dataset
 * (`--seed 1 --scale medium` by default, plus the two cases of profile Revision 3 that a
 * generated dataset lacks, as the fault matrix serves them: `withRevision3Cases`) with that
 * fault, the suite in blind mode with the
 * first team's admin, narrowed to the requirements the fault declares for blind mode. A fault
 * that one admin cannot observe (`blind: { unobservable }`) is run instead in blind mode with
 * a profile of the credentials the server prints at start (one per team and account type, as
 * `tagtrack-conformance init --credentials-file` writes it), narrowed to the requirements that
 * catch it with every credential declared (`blindDeclared`, else `detectedBy` without the
 * fixture-only `ORACLE-*`). A fault passes when the run fails one of them; one that even the
 * printed credentials cannot observe is listed as such. Exit 1 when a fault is missed.
 *
 *   pnpm --filter @tagtrack/conformance store-faults
 *   SCALE=medium SEED=1 NUM_RUNS=5 ONLY_FAULTS=name,name
 */
import { generateDataset, SCALES, type ScaleName, withRevision3Cases } from '@tagtrack/dataset';
import { createServer, FAULTS, type FaultInfo, type FaultName } from '@tagtrack/server';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import type { ProfileInput } from '../src/profile/profile.ts';
import { runConformance } from '../src/run/runner.ts';
import { declaredFor } from '../test/fault-declared.ts';

const scale = (process.env.SCALE ?? 'medium') as ScaleName;
const seed = Number(process.env.SEED ?? 1);
const numRuns = Number(process.env.NUM_RUNS ?? 5);
const only = process.env.ONLY_FAULTS?.split(',');
const BASE_URL = 'http://tagtrack.memory';

const t0 = performance.now();
const dataset = withRevision3Cases(generateDataset({ seed, scale: SCALES[scale] }));
const admin = dataset.teams[0]!.members.find((m) => m.accountType === 'admin')!;
const credential = dataset.credentials.find((c) => c.memberID === admin.memberID)!;
console.log(
  `dataset seed ${seed}, scale ${scale}: ${dataset.opens.length + dataset.clicks.length} events (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);

/**
 * The profile of the credentials the server prints at start (the first member of each team
 * and account type), as `init` writes it.
 */
const byMember = new Map(dataset.credentials.map((c) => [c.memberID, c]));
const printedProfile: ProfileInput = {
  ...canonicalProfile(),
  credentials: dataset.teams.flatMap((team) =>
    (['admin', 'manager', 'user'] as const).flatMap((accountType) => {
      const m = team.members.find((x) => x.accountType === accountType && byMember.has(x.memberID));
      if (m === undefined) return [];
      const { authId, accessKey } = byMember.get(m.memberID)!;
      const label = `${team.teamID}-${accountType}`;
      return [{ label, authId, accessKey, teamID: team.teamID, accountType, memberID: m.memberID }];
    }),
  ),
};

const faults: readonly FaultInfo[] = FAULTS;
const store = faults.filter((f) => f.wrap?.store !== undefined && (only?.includes(f.name) ?? true));
const missed: string[] = [];
for (const fault of store) {
  const byOneAdmin = fault.blind ?? fault.detectedBy;
  const everyCredential = !Array.isArray(byOneAdmin);
  const declared = everyCredential ? declaredFor(fault, 'blind-declared') : byOneAdmin;
  if (!Array.isArray(declared)) {
    console.log(
      `-     ${fault.name}: unobservable in blind mode (${(declared as { unobservable: string }).unobservable})`,
    );
    continue;
  }
  const server = createServer({ dataset, faults: [fault.name as FaultName] });
  const started = performance.now();
  const result = await runConformance({
    baseUrl: BASE_URL,
    fetch: (r) => server.fetch(r),
    mode: 'blind',
    ...(everyCredential
      ? { profile: printedProfile }
      : { authId: credential.authId, accessKey: credential.accessKey }),
    seed,
    numRuns,
    only: declared.join(','),
  });
  const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  const caught = failed.some((id) => declared.includes(id));
  if (!caught) missed.push(fault.name);
  console.log(
    `${caught ? 'CAUGHT' : 'MISSED'} ${fault.name}${everyCredential ? ` (${printedProfile.credentials?.length} printed credentials)` : ''}: failed [${failed.join(', ')}] of [${declared.join(', ')}], ${result.requests.sent} requests, ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
console.log(
  missed.length === 0
    ? `every observable store fault caught at scale ${scale}`
    : `missed at scale ${scale}: ${missed.join(', ')}`,
);
process.exitCode = missed.length === 0 ? 0 : 1;
