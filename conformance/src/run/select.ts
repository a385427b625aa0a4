import { AREAS, type Area, type Check, FORMER_AREAS } from '../check/define.ts';
import { ConfigError } from './errors.ts';

/**
 * Whether a requirement id or area matches an `--only` pattern (see {@link RunOptions.only}):
 * the id, the area, or the area's former name (`FORMER_AREAS`, accepted for one release).
 */
export function matchesOnly(check: Pick<Check, 'id' | 'area'>, only: string | undefined): boolean {
  const patterns = splitPatterns(only);
  return patterns.length === 0 || patterns.some((p) => matchesPattern(check, p));
}

/** The comma-separated patterns of `--only`/`--exclude`, trimmed, empty ones dropped. */
export function splitPatterns(patterns: string | undefined): string[] {
  return (patterns ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Whether one pattern (substring, or glob with `*`/`?`; any case) matches the id or area. */
export function matchesPattern(check: Pick<Check, 'id' | 'area'>, pattern: string): boolean {
  const former = (AREAS as readonly string[]).includes(check.area)
    ? FORMER_AREAS[check.area as Area]
    : undefined;
  const subjects = [check.id, check.area, ...(former === undefined ? [] : [former])].map((s) =>
    s.toUpperCase(),
  );
  const p = pattern.trim().toUpperCase();
  if (/[*?]/.test(p)) {
    const re = new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    return subjects.some((s) => re.test(s));
  }
  return subjects.some((s) => s.includes(p));
}

/**
 * The checks `only` and `exclude` select. Throws {@link ConfigError} when a pattern of either
 * matches no check (a typo would otherwise pass silently) or when nothing is left to run.
 */
export function selectChecks<C extends Pick<Check, 'id' | 'area'>>(
  checks: readonly C[],
  only: string | undefined,
  exclude: string | undefined,
): C[] {
  for (const [flag, patterns] of [
    ['--only', only],
    ['--exclude', exclude],
  ] as const) {
    for (const p of splitPatterns(patterns)) {
      if (!checks.some((c) => matchesPattern(c, p)))
        throw new ConfigError(
          `${flag} pattern ${JSON.stringify(p)} matches no requirement id or area (list them with: tagtrack-conformance requirements)`,
        );
    }
  }
  const excluded = splitPatterns(exclude);
  const selected = checks.filter(
    (c) => matchesOnly(c, only) && !excluded.some((p) => matchesPattern(c, p)),
  );
  if (selected.length === 0)
    throw new ConfigError('--only and --exclude together leave no check to run');
  return selected;
}
