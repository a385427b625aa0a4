import type { Failure } from '../checks/api.ts';

/**
 * A failure as plain text lines: the message in domain words, expected/actual, the
 * fast-check seed, path and shrunk counterexample, and the curl line that reproduces it.
 */
export function failureText(f: Failure, indent = ''): string {
  const lines = [f.message];
  if (f.expected !== undefined) lines.push(`expected: ${f.expected}`);
  if (f.actual !== undefined) lines.push(`actual:   ${f.actual}`);
  if (f.seed !== undefined)
    lines.push(
      `fast-check: seed ${f.seed}, path ${JSON.stringify(f.path ?? '')}, ${f.numShrinks ?? 0} shrinks, counterexample ${f.counterexample}`,
    );
  if (f.curl !== undefined) lines.push(`reproduce: ${f.curl}`);
  return lines.map((l, i) => (i === 0 ? l : `${indent}  ${l}`)).join('\n');
}

/** Replaces the value of an Authorization header inside a curl line (for shared reports). */
export function redactCurl(curl: string): string {
  return curl.replace(/'authorization: [^']*'/gi, "'authorization: <redacted>'");
}
