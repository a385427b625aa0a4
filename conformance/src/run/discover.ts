import type { EndpointId } from '@tagtrack/core';
import type { DiscoveredPart, Discovery, RunServices } from '../check/context.ts';
import { CheckContext } from '../check/context.ts';
import type { SuiteCredential } from '../check/define.ts';
import { type CheckScope, flattenLog, inScope, Violation } from '../check/failure.ts';
import { WALK_MAX_RECORDS } from '../check/walk.ts';
import { ByteCache } from '../http/byte-cache.ts';

/**
 * Walks the list endpoints for a credential, in a scope of its own (no check counts its
 * comparisons; its exchanges join the log of each check that uses it). A list longer than the
 * suite walks whole ({@link WALK_MAX_RECORDS}; as a caller other than the primary of a run
 * sampling callers, `sampleAbove`: caller-lists.ts) is read at seeded cursors instead, about the
 * run's `sampleAbove` records (`sampledList`), and its part is named in `sampled`: the ids
 * checks take from it are real, the part is not the whole list. With `sampleAbove` infinite
 * (never sample) every list is walked. A list that cannot be walked gives an empty part and a
 * line in `problems` (the checks using it report it).
 */
export async function discover(
  services: RunServices,
  credential: SuiteCredential,
): Promise<Discovery> {
  const scope: CheckScope = { comparisons: 0, log: [] };
  const ctx = new CheckContext('DISCOVERY', services, scope);
  const problems: string[] = [];
  const sampled: DiscoveredPart[] = [];
  // a caller other than the primary of a run sampling callers: its long lists at seeded
  // cursors (caller-lists.ts)
  const wholeUpTo = Number.isFinite(ctx.sampleAbove)
    ? ctx.boundOf(credential)
    : Number.POSITIVE_INFINITY;
  const list = async <Id extends EndpointId>(endpoint: Id, part: DiscoveredPart) => {
    try {
      const read = await ctx.sampledList(endpoint, { credential }, part, wholeUpTo);
      if (read.sampled) sampled.push(part);
      return read.records;
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      problems.push(`${endpoint} as ${credential.label}: ${e.message}`);
      return [];
    }
  };
  // each list logs in a part of its own: the discovery's exchanges are in the same order
  // whichever list's pages are answered first (same seed, same request lists)
  const part = <T>(fn: () => Promise<T>): Promise<T> => {
    const own: CheckScope = { comparisons: 0, log: [] };
    scope.log.push({ log: own.log });
    return inScope(own, fn);
  };
  const [members, tags, contacts] = await Promise.all([
    part(() => list('teams.list', 'members')),
    part(() => list('teams.tags', 'tags')),
    part(() => list('contacts.list', 'contacts')),
  ]);
  const groups = new Map<string, { groupID: string; groupName: string }>();
  for (const m of members) {
    const id = m.groupID;
    const name = m.groupName;
    if (typeof id === 'string' && id !== '' && typeof name === 'string')
      groups.set(id, { groupID: id, groupName: name });
  }
  return {
    members,
    tags,
    contacts,
    groups: [...groups.values()],
    exchanges: flattenLog(scope.log),
    problems,
    sampled,
  };
}

/**
 * An empty cache of discoveries by credential, capped at `maxBytes` (least recently used go
 * first; a discovery asked for again after it went is made again from the walk cache and the
 * run's kept answers, with no request, unless a check still holds it: then it is shared). A
 * discovery counts an estimate of its parsed records: 400 bytes a member, 1,200 a tag (its
 * recipients), 500 a contact.
 */
export function newDiscoveryCache(maxBytes: number): ByteCache<Discovery> {
  return new ByteCache<Discovery>(
    maxBytes,
    (d) => 1024 + 400 * d.members.length + 1200 * d.tags.length + 500 * d.contacts.length,
    { shareWhileAlive: true },
  );
}
