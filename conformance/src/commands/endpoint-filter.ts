import { ENDPOINT_LIST, type EndpointId, matchEndpoint } from '@tagtrack/core';

/**
 * The catalogue endpoints (docs/spec.md's endpoint table, core's `ENDPOINT_LIST`) one
 * `--endpoint` pattern names, any case: an endpoint id (`teams.tags`), a glob of ids with `*`
 * and `?` (`teams.*`), a path template (`/teams/member/{memberID}`), or a concrete path
 * (`/teams/tags`, `/contacts/abc/events`; a query is ignored).
 */
export function endpointsMatching(pattern: string): EndpointId[] {
  const p = pattern.trim();
  if (p.startsWith('/')) {
    const path = p.split('?')[0]!.replace(/\/+$/, '') || '/';
    const byTemplate = ENDPOINT_LIST.filter((e) => e.path.toLowerCase() === path.toLowerCase());
    if (byTemplate.length > 0) return byTemplate.map((e) => e.id);
    const match = matchEndpoint(path);
    return match === undefined ? [] : [match.endpoint.id];
  }
  const lower = p.toLowerCase();
  if (/[*?]/.test(lower)) {
    const re = new RegExp(
      `^${lower
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    return ENDPOINT_LIST.filter((e) => re.test(e.id.toLowerCase())).map((e) => e.id);
  }
  return ENDPOINT_LIST.filter((e) => e.id.toLowerCase() === lower).map((e) => e.id);
}

/**
 * The endpoints `--endpoint` selects: its patterns (comma-separated, repeatable) each name at
 * least one catalogue endpoint. Returns the set, or the one-line usage message naming the
 * pattern that matched nothing and the known endpoints.
 */
export function selectEndpoints(patterns: readonly string[]): Set<EndpointId> | string {
  const selected = new Set<EndpointId>();
  for (const p of patterns
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter((x) => x !== '')) {
    const found = endpointsMatching(p);
    if (found.length === 0)
      return `--endpoint ${JSON.stringify(p)} matches no endpoint; known endpoints: ${ENDPOINT_LIST.map((e) => `${e.id} (${e.path})`).join(', ')}`;
    for (const id of found) selected.add(id);
  }
  return selected;
}
