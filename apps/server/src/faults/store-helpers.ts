/**
 * Helpers of the store faults (`store.ts`): the wrapper of an answer, and facts about the
 * dataset that only some faults need (built when such a fault wraps a store).
 */
import {
  type Answer,
  type Caller,
  contactIdOf,
  type Dataset,
  type EndpointRequest,
} from '@tagtrack/core';
import type { StoreLayer } from './store-layer.ts';

/** A wrapper passing each answer of the layer it wraps through `change`. */
export function answerOf(
  change: (caller: Caller, request: EndpointRequest, answer: Answer) => Answer,
): (s: StoreLayer) => StoreLayer {
  return (s) => ({
    ...s,
    answer: (caller, request) => change(caller, request, s.answer(caller, request)),
  });
}

/** Counts of events per key, split by kind. */
export interface EventCounts {
  opens: number;
  clicks: number;
}

/** The opens and clicks of `dataset` counted per `keyOf` (events without a key are left out). */
export function countEvents(
  dataset: Dataset,
  keyOf: (e: Dataset['opens'][number]) => string | undefined,
): Map<string, EventCounts> {
  const out = new Map<string, EventCounts>();
  for (const kind of ['opens', 'clicks'] as const) {
    for (const e of dataset[kind]) {
      const key = keyOf(e);
      if (key === undefined) continue;
      let c = out.get(key);
      if (!c) {
        c = { opens: 0, clicks: 0 };
        out.set(key, c);
      }
      c[kind]++;
    }
  }
  return out;
}

/** memberID -> teamID over `dataset`. */
export function teamsOfMembers(dataset: Dataset): Map<string, string> {
  const teamOfMember = new Map<string, string>();
  for (const team of dataset.teams)
    for (const m of team.members) teamOfMember.set(m.memberID, team.teamID);
  return teamOfMember;
}

/** Whether the id a request names exists in `dataset`, in or out of the caller's scope. */
export function existsIn(dataset: Dataset): (request: EndpointRequest) => boolean {
  const members = new Set(teamsOfMembers(dataset).keys());
  const tags = new Set(dataset.tags.map((t) => t.tagID));
  const groups = new Set<string>();
  for (const team of dataset.teams) {
    for (const g of team.groups) {
      groups.add(g.groupID);
      groups.add(g.groupName);
    }
  }
  const contacts = new Set<string>();
  for (const t of dataset.tags) for (const r of t.recipients) contacts.add(contactIdOf(r.email));
  return (request) => {
    const p = request.pathParams;
    if (p.memberID !== undefined) return members.has(p.memberID);
    if (p.tagID !== undefined) return tags.has(p.tagID);
    if (p.group !== undefined) return groups.has(p.group);
    if (p.contactID !== undefined) return contacts.has(p.contactID);
    return false;
  };
}

/** Whether `request` is to `clicks.list`, `opens.list`, `clicks.tag` or `opens.tag`. */
export function isEventEndpoint(request: EndpointRequest): boolean {
  return (
    request.endpoint === 'clicks.list' ||
    request.endpoint === 'opens.list' ||
    request.endpoint === 'clicks.tag' ||
    request.endpoint === 'opens.tag'
  );
}

/** Whether `request` is to a tag list: `teams.tags` or `teams.memberTags`. */
export function isTagEndpoint(request: EndpointRequest): boolean {
  return request.endpoint === 'teams.tags' || request.endpoint === 'teams.memberTags';
}

/** The list `answer` with `fn` applied to each record. */
export function mapList<T>(answer: Answer & { kind: 'list' }, fn: (record: T) => T): Answer {
  return { kind: 'list', records: (answer.records as T[]).map(fn) };
}
