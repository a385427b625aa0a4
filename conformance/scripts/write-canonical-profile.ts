/**
 * Writes fixtures/canonical-profile.json: the reference profile with the credentials of the
 * canonical dataset (`CANONICAL_CREDENTIALS` of @tagtrack/core), for fixture mode.
 * Run: `pnpm --filter @tagtrack/conformance canonical-profile`.
 */
import { writeFile } from 'node:fs/promises';
import { canonicalProfile } from '../src/profile/fixtures.ts';

const file = new URL('../fixtures/canonical-profile.json', import.meta.url);
await writeFile(file, `${JSON.stringify(canonicalProfile(), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
