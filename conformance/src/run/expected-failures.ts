import { readFile } from 'node:fs/promises';
import * as z from 'zod';

/**
 * One entry of an expected-failures file: a requirement id the implementation is known to
 * fail, with an optional reason (OpenID conformance suite practice). A listed check that
 * fails does not fail the run; a listed check that passes makes the run fail (the file
 * cannot go stale).
 */
export const ExpectedFailure = z
  .object({ id: z.string().min(1), reason: z.string().optional() })
  .strict();
export type ExpectedFailure = z.infer<typeof ExpectedFailure>;

/** The file: a JSON list of requirement ids or `{ id, reason }` objects. */
export const ExpectedFailuresFile = z.array(
  z.union([
    z
      .string()
      .min(1)
      .transform((id) => ({ id })),
    ExpectedFailure,
  ]),
);

/** The file is unreadable or invalid; the message names the offending entry. */
export class ExpectedFailuresError extends Error {
  override readonly name = 'ExpectedFailuresError';
  readonly code = 'invalid_expected_failures' as const;
}

/** Reads and validates an expected-failures file. Throws {@link ExpectedFailuresError}. */
export async function loadExpectedFailures(file: string): Promise<ExpectedFailure[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new ExpectedFailuresError(
      `cannot read expected-failures file ${file}: ${(e as Error).message}`,
    );
  }
  const parsed = ExpectedFailuresFile.safeParse(json);
  if (!parsed.success)
    throw new ExpectedFailuresError(
      `invalid expected-failures file ${file}:\n${z.prettifyError(parsed.error)}`,
    );
  return parsed.data.map((e) =>
    'reason' in e && e.reason !== undefined ? { id: e.id, reason: e.reason } : { id: e.id },
  );
}
