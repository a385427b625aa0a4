import type { Check } from '../check/define.ts';
import { specClause } from '../check/spec-clause.ts';
import { ALL_CHECKS } from '../checks/index.ts';
import { ChecksError, loadChecks } from '../run/custom-checks.ts';

import { EXIT, usage } from './run.ts';

/**
 * Prints the requirement catalogue (id, area, required, clause, endpoints, title), then the
 * checks `checksFile` exports (as `run --checks` loads them); 2 when that file is unusable.
 */
export async function requirementsCommand(json: boolean, checksFile?: string): Promise<number> {
  let own: readonly Check[] = [];
  try {
    if (checksFile !== undefined) own = await loadChecks(checksFile);
  } catch (e) {
    if (e instanceof ChecksError) return usage(e.message);
    throw e;
  }
  const rows = [...ALL_CHECKS, ...own].map((c) => ({
    id: c.id,
    area: c.area,
    required: c.required ?? true,
    clause: specClause(c.clause),
    endpoints: [...c.endpoints],
    title: c.title,
  }));
  if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else {
    for (const r of rows) {
      process.stdout.write(
        `${r.id}\t${r.area}\t${r.clause}\t${r.endpoints.join(',')}\t${r.title}\n`,
      );
    }
  }
  return EXIT.ok;
}
