import { decodeFormComponent, type QueryEntry, QueryParamError } from '@tagtrack/core';
import type { ParamsLayer } from '../request.ts';
import type { FaultInfo } from './info.ts';

/**
 * Faults of the query syntax (spec §6 Revision 3: `application/x-www-form-urlencoded`):
 * how the raw query string is cut into decoded parameters. Each wraps the `entries` stage of
 * the clean `ParamsLayer` (request.ts).
 */
export const PARAMS_SYNTAX_FAULTS = [
  {
    name: 'empty-piece-400',
    area: 'params',
    description:
      'an empty piece of the query (a=1&&b=2, a trailing &) is read as a parameter with an empty name: 400 unknown parameter instead of ignored (spec §6 Revision 3)',
    detectedBy: ['INPUT-QUERY-EMPTY-PIECES'],
    wrap: {
      params: (p) => ({
        ...p,
        entries: (endpoint, raw) => {
          const entries = p.entries(endpoint, raw);
          // bug: the query is split on `&` and every piece is read, an empty one as an empty name
          return raw !== '' && raw.split('&').includes('') ? [...entries, ['', '']] : entries;
        },
      }),
    },
  },
  {
    name: 'bare-name-ignored',
    area: 'params',
    description:
      'a piece without = (?type) is skipped as if absent instead of read as type with an empty value, a 400 (spec §6 Revision 3)',
    detectedBy: ['INPUT-QUERY-BARE-NAME'],
    // bug: pieces are matched with a `name=value` pattern; one without `=` matches nothing
    wrap: { params: rawPieces((piece) => piece.includes('=')) },
  },
  {
    name: 'empty-name-ignored',
    area: 'params',
    description:
      'a piece with an empty name (=json) is skipped instead of refused as an unknown parameter (spec §6 Revision 3)',
    detectedBy: ['INPUT-QUERY-EMPTY-NAME'],
    // bug: the pattern wants a non-empty name, so `=json` matches nothing
    wrap: { params: rawPieces((piece) => !piece.startsWith('=')) },
  },
  {
    name: 'names-case-insensitive',
    area: 'params',
    description:
      'parameter names are matched in any case: RTN=json is read as rtn instead of refused as unknown (spec §6 Revision 3: names are case-sensitive)',
    detectedBy: ['INPUT-QUERY-NAMES-CASE'],
    wrap: {
      params: (p) => ({
        ...p,
        entries: (endpoint, raw) => {
          // bug: names are looked up lower-cased
          const byLower = new Map(endpoint.query.map((name) => [name.toLowerCase(), name]));
          return p
            .entries(endpoint, raw)
            .map(
              ([name, ...rest]): QueryEntry => [byLower.get(name.toLowerCase()) ?? name, ...rest],
            );
        },
      }),
    },
  },
  {
    name: 'values-not-decoded',
    area: 'params',
    description:
      'values are read without percent-decoding: rtn=%6Ason (json) and start=2024%2D01%2D01 answer 400 (spec §6 Revision 3: %XX is decoded)',
    detectedBy: ['INPUT-QUERY-VALUES-DECODED'],
    wrap: {
      params: (p) => ({
        ...p,
        // bug: names are decoded, values are taken as sent
        entries: (_endpoint, raw) =>
          raw
            .split('&')
            .filter((piece) => piece !== '')
            .map((piece): QueryEntry => {
              const eq = piece.indexOf('=');
              const name = eq < 0 ? piece : piece.slice(0, eq);
              const decoded = decodeFormComponent(name);
              return [
                typeof decoded === 'string' ? decoded : name,
                eq < 0 ? '' : piece.slice(eq + 1),
              ];
            }),
      }),
    },
  },
  {
    name: 'names-not-decoded',
    area: 'params',
    description:
      'names are compared as sent, without percent-decoding: %72tn=json is an unknown parameter (docs/spec.md §6: names are decoded like values)',
    detectedBy: ['INPUT-QUERY-NAMES-DECODED'],
    wrap: {
      params: (p) => ({
        ...p,
        entries: (endpoint, raw) => {
          // bug: names are compared as sent, so `%72tn=json` is an unknown parameter
          const raws = raw.split('&').filter((piece) => piece !== '');
          return p.entries(endpoint, raw).map((entry, i): QueryEntry => {
            const piece = raws[i] ?? '';
            const eq = piece.indexOf('=');
            return [eq < 0 ? piece : piece.slice(0, eq), ...(entry.slice(1) as [string])];
          });
        },
      }),
    },
  },
  {
    name: 'malformed-escape-as-absent',
    area: 'params',
    description:
      'a parameter whose value holds a malformed escape (%zz, a lone %) is dropped as if absent instead of a 400 naming it (spec §6 Revision 3)',
    detectedBy: ['INPUT-QUERY-UNDECODABLE'],
    wrap: {
      params: (p) => ({
        ...p,
        // bug: decodeURIComponent throws, and the catch skips the parameter
        entries: (endpoint, raw) =>
          p.entries(endpoint, raw).filter((entry) => entry[2] !== 'malformed-escape'),
      }),
    },
  },
  {
    name: 'non-utf8-bytes-dropped',
    area: 'params',
    description:
      'decoded bytes that are not UTF-8 are dropped from the value: rtn=json%FF is read as rtn=json instead of a 400 naming rtn (spec §6 Revision 3)',
    detectedBy: ['INPUT-QUERY-UNDECODABLE'],
    wrap: {
      params: (p) => ({
        ...p,
        // bug: the bytes are decoded leniently and the replacement characters dropped
        entries: (endpoint, raw) =>
          p
            .entries(endpoint, raw)
            .map(
              (entry): QueryEntry =>
                entry[2] === 'not-utf8' ? [entry[0], dropNonUtf8(entry[1])] : entry,
            ),
      }),
    },
  },
  {
    name: 'undecodable-ignored-param-400',
    area: 'params',
    description:
      'the whole query is decoded strictly before any parameter is looked at: total=%zz or next=%FF answers 400 instead of being ignored (spec §6 Revision 3: total and next stay ignored)',
    detectedBy: ['INPUT-QUERY-UNDECODABLE'],
    wrap: {
      params: (p) => ({
        ...p,
        entries: (endpoint, raw) => {
          const entries = p.entries(endpoint, raw);
          // bug: the whole query is decoded strictly before any parameter is looked at
          const bad = entries.find((entry) => entry[2] !== undefined);
          if (bad !== undefined) {
            throw new QueryParamError(
              'invalid_value',
              bad[0],
              `query parameter '${bad[0]}' is not valid percent-encoded UTF-8`,
            );
          }
          return entries;
        },
      }),
    },
  },
] as const satisfies readonly FaultInfo[];

/** A wrapper reading only the `&`-separated pieces of the raw query that `keep` keeps. */
function rawPieces(keep: (piece: string) => boolean): (p: ParamsLayer) => ParamsLayer {
  return (p) => ({
    ...p,
    entries: (endpoint, raw) => p.entries(endpoint, raw.split('&').filter(keep).join('&')),
  });
}

/** Fault `non-utf8-bytes-dropped`: a raw value decoded with the bytes that are not UTF-8 left out. */
function dropNonUtf8(raw: string): string {
  const encoder = new TextEncoder();
  const bytes = [...raw.replace(/\+/g, ' ').matchAll(/%([0-9A-Fa-f]{2})|([^%]+)/g)].flatMap(
    ([, hex, text]) => (hex !== undefined ? [Number.parseInt(hex, 16)] : [...encoder.encode(text)]),
  );
  return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\uFFFD/g, '');
}
