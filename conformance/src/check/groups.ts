import { visibleGroups } from '@tagtrack/core';
import type { Exchange } from '../http/client.ts';
import type { CheckContext, Discovery } from './context.ts';
import { parseJson } from './walk.ts';

/** A group a group segment may resolve to (spec §4 Revision 2). */
export interface GroupRef {
  readonly groupID: string;
  readonly groupName: string;
}

/**
 * The visible group a group segment names (spec §4 Revision 2 and 3): the group with that
 * exact id, else among those with that exact (case-sensitive) name the lowest groupID in
 * UTF-16 code-unit order, else `undefined`.
 */
export function resolveGroupSegment(
  groups: readonly GroupRef[],
  segment: string,
): GroupRef | undefined {
  const byId = groups.find((g) => g.groupID === segment);
  if (byId !== undefined) return byId;
  let best: GroupRef | undefined;
  for (const g of groups)
    if (g.groupName === segment && (best === undefined || g.groupID < best.groupID)) best = g;
  return best;
}

/**
 * The groups visible to the primary credential that the check knows of: those of the members
 * it discovered (`d`), and in fixture mode every group of the dataset the caller may see (an
 * admin also sees groups without members, spec §4 Revision 2).
 */
export function knownVisibleGroups(ctx: CheckContext, d: Discovery): GroupRef[] {
  const visible: GroupRef[] = [...d.groups];
  const caller = ctx.oracle?.callerOf(ctx.primary);
  if (ctx.oracle !== undefined && caller !== undefined)
    for (const g of visibleGroups(ctx.oracle.dataset, caller))
      if (!visible.some((v) => v.groupID === g.groupID))
        visible.push({ groupID: g.groupID, groupName: g.groupName });
  return visible;
}

/**
 * Whether the primary credential may see groups the check cannot know of: an admin sees every
 * group of its team (spec §4 Revision 2), also groups without members, which no list
 * shows; in blind mode with a credential not declared as manager or user, such a group may
 * share a name with a known one and have a lower groupID, and then the name resolves to it.
 * Never in fixture mode (the dataset names every group).
 */
export function mayHideEmptyGroups(ctx: CheckContext): boolean {
  if (ctx.oracle !== undefined) return false;
  const type = ctx.primary.accountType;
  return type !== 'manager' && type !== 'user';
}

/**
 * Whether a group answer is that of a group without members: a member list without records
 * (204, `data: []`, `X-Total-Count: 0`) or a stats answer of zero counters.
 */
export function answersNoMember(ex: Exchange): boolean {
  if (ex.status === 204) return true;
  if (ex.status !== 200) return false;
  if (ex.responseHeaders['x-total-count'] === '0') return true;
  try {
    const body = parseJson(ex) as { data?: unknown };
    const data = body.data;
    if (Array.isArray(data)) {
      if (data.length === 0) return true;
      return data.every(
        (r) =>
          typeof r === 'object' &&
          r !== null &&
          'totalSent' in r &&
          (r as { totalSent: unknown }).totalSent === 0,
      );
    }
  } catch {
    return false;
  }
  return false;
}
