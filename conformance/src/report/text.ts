import type { Failure } from '../check/failure.ts';

/**
 * A failure as plain text lines: its kind and the message in domain words (with how many
 * more failures had the same key), expected/actual, the fast-check seed, path and shrunk
 * counterexample, and the `tagtrack-conformance request` line that reproduces it (no secret).
 */
export function failureText(f: Failure, indent = ''): string {
  const repeats = f.repeats ? ` (and ${f.repeats} more like it)` : '';
  const lines = [`[${f.kind}] ${f.message}${repeats}`];
  if (f.expected !== undefined) lines.push(`expected: ${f.expected}`);
  if (f.actual !== undefined) lines.push(`actual:   ${f.actual}`);
  if (f.seed !== undefined)
    lines.push(
      `fast-check: seed ${f.seed}, path ${JSON.stringify(f.path ?? '')}, ${f.numShrinks ?? 0} shrinks, counterexample ${f.counterexample}`,
    );
  const reproduce = f.reproduce ?? (f.curl === undefined ? undefined : redactCurl(f.curl));
  if (reproduce !== undefined) lines.push(`reproduce: ${reproduce}`);
  return lines.map((l, i) => (i === 0 ? l : `${indent}  ${l}`)).join('\n');
}

/** Replaces the value of an Authorization header inside a curl line (for shared reports). */
export function redactCurl(curl: string): string {
  return curl.replace(/'authorization: [^']*'/gi, "'authorization: <redacted>'");
}
