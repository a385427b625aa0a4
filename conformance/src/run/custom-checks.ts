import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENDPOINT_LIST, type EndpointId } from '@tagtrack/core';
import * as z from 'zod';
import { type Check, type CheckSpec, defineCheck, REQUIREMENT_ID } from '../check/define.ts';
import { ALL_CHECKS } from '../checks/index.ts';

/**
 * A list of checks (the `checks` option of `runConformance`, or a `--checks FILE` module) is
 * unusable: a check of the wrong shape, an id that is malformed, repeated or a built-in one,
 * a file that cannot be imported or exports no checks. The message names the check (its
 * position and id) and what was wrong with it.
 */
export class ChecksError extends Error {
  override readonly name = 'ChecksError';
  readonly code = 'invalid_checks' as const;
}

const ENDPOINT_IDS = ENDPOINT_LIST.map((e) => e.id) as [EndpointId, ...EndpointId[]];

const fn = (name: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
    message: `${name} must be a function`,
  });

/** The shape a check must have (see `Check` in checks/define.ts): data plus `run(ctx)`. */
const CheckShape = z.object({
  id: z
    .string({ message: 'id must be a string' })
    .regex(
      REQUIREMENT_ID,
      'id must be upper-case words joined by "-", your own prefix first (e.g. ACME-VERSION-HEADER)',
    ),
  title: z.string({ message: 'title must be a string' }).min(1, 'title must not be empty'),
  clause: z.string({ message: 'clause must be a string' }).min(1, 'clause must not be empty'),
  endpoints: z.array(z.enum(ENDPOINT_IDS), {
    message: 'endpoints must be an array of endpoint ids',
  }),
  required: z.boolean({ message: 'required must be a boolean' }).optional(),
  skipIf: fn('skipIf').optional(),
  run: fn('run(ctx)'),
});

const BUILT_IN_IDS = new Set(ALL_CHECKS.map((c) => c.id));

/** `check 2 ("ACME-X")`: a check of a list in words, for error messages. */
function nameOf(value: unknown, index: number): string {
  const id = (value as { id?: unknown } | null)?.id;
  return `check ${index + 1}${typeof id === 'string' ? ` (${id})` : ''}`;
}

/**
 * Validates a list of checks and gives each its area (as `defineCheck` does): the built-in
 * checks (the objects of `ALL_CHECKS`) as they are, any other check of the shape of `Check`
 * with a requirement id of its own. Returns the list in the same order.
 * Throws {@link ChecksError} naming `source` and the check when an element is not a check, an
 * id is malformed or appears twice, or a check that is not the built-in one uses a built-in id.
 */
export function validateChecks(checks: unknown, source = 'checks'): Check[] {
  if (!Array.isArray(checks))
    throw new ChecksError(
      `${source} must be an array of checks, got ${checks === null ? 'null' : typeof checks}`,
    );
  const seen = new Set<string>();
  return checks.map((value: unknown, index) => {
    const builtIn = ALL_CHECKS.includes(value as Check);
    if (!builtIn) {
      const parsed = CheckShape.safeParse(value);
      if (!parsed.success)
        throw new ChecksError(
          `${source}: ${nameOf(value, index)} is not a check: ${z.prettifyError(parsed.error).replace(/\n\s*/g, ' ')}`,
        );
      if (BUILT_IN_IDS.has(parsed.data.id))
        throw new ChecksError(
          `${source}: ${nameOf(value, index)} uses the id of a built-in requirement; give it an id of your own, with your own prefix (e.g. ACME-VERSION-HEADER)`,
        );
    }
    const check = builtIn ? (value as Check) : defineCheck(value as CheckSpec);
    if (seen.has(check.id))
      throw new ChecksError(
        `${source}: ${nameOf(value, index)}: two checks have the id ${check.id}`,
      );
    seen.add(check.id);
    return check;
  });
}

/**
 * Imports the ES module `file` (`--checks FILE`) and returns the checks it exports: its named
 * export `checks` or its default export, an array of checks (plain objects or made with
 * `defineCheck`), validated by {@link validateChecks}. They are the vendor's own checks, run
 * after the built-in ones: a built-in check or id among them is an error. Throws
 * {@link ChecksError} naming the file and what was wrong.
 */
export async function loadChecks(file: string): Promise<Check[]> {
  const source = `--checks ${file}`;
  const path = resolve(file);
  if (!existsSync(path)) throw new ChecksError(`${source}: no such file`);
  let mod: { checks?: unknown; default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as typeof mod;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const hint =
      err.code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (compile it to JavaScript first, or run the suite under tsx)'
        : '';
    throw new ChecksError(`${source}: cannot import it: ${err.message}${hint}`);
  }
  const exported = mod.checks ?? mod.default;
  if (exported === undefined)
    throw new ChecksError(
      `${source}: the module exports no checks: export an array named \`checks\` or as its default export`,
    );
  const checks = validateChecks(exported, source);
  if (checks.length === 0) throw new ChecksError(`${source}: the module exports an empty list`);
  const builtIn = checks.find((c) => ALL_CHECKS.includes(c));
  if (builtIn !== undefined)
    throw new ChecksError(
      `${source}: exports the built-in check ${builtIn.id}; export only your own checks (they run after the built-in ones)`,
    );
  return checks;
}
