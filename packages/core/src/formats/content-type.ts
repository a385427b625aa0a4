import type { Rtn } from '../params.ts';

/** Content types of the three formats (spec §8). */
export const CONTENT_TYPES: Readonly<Record<Rtn, string>> = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/**
 * The charset a `Content-Type` value declares (lowercased, quotes removed), or `undefined`.
 * E.g. `text/html; Charset="UTF-8"` gives `utf-8`.
 */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m?.[1]?.toLowerCase();
}

/**
 * Whether a response's `Content-Type` is right for `rtn` (spec §8 Revision 2): the media
 * type matches (`application/json`, `text/plain`, `text/html`; any case) and the value
 * carries `charset=utf-8` (any case, quoted or not); other parameters are free.
 */
export function contentTypeMatches(rtn: Rtn, contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const want = CONTENT_TYPES[rtn].split(';')[0]!;
  return media === want && charsetOf(contentType) === 'utf-8';
}
