import { DAY_MS, type Dataset, normaliseEmail } from '@tagtrack/core';
import { MAX_EVENT_DELAY_DAYS } from '../src/scales.ts';

/** The reference profile's id shape (spec §9). */
export const REFERENCE_ID = /^[0-9a-f]{24}$/;
/** `YYYY-MM-DDTHH:MM:SSZ`, seconds precision (spec §9). */
export const SECONDS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * The generator's promises about a dataset, checked independently of the aggregation code:
 * unique 24-hex ids, groupIDs of the member's own team, tags of existing members with
 * distinct recipients (after trim + lowercase), events of existing tags whose email is one of
 * that tag's recipients after trim + lowercase, dated strictly after `dateSent` and within
 * {@link MAX_EVENT_DELAY_DAYS} days, seconds-precision timestamps, and exactly one credential
 * per member (20 uppercase alphanumerics, 40 lowercase hex). Returns one line per problem.
 */
export function generatorProblems(dataset: Dataset): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const unique = (kind: string, id: string): void => {
    if (!REFERENCE_ID.test(id)) problems.push(`${kind} id ${id} is not 24 lowercase hex`);
    if (ids.has(id)) problems.push(`duplicate id ${id} (${kind})`);
    ids.add(id);
  };
  const memberIDs = new Set<string>();
  for (const team of dataset.teams) {
    unique('team', team.teamID);
    const groupIDs = new Set(team.groups.map((g) => g.groupID));
    const groupNames = new Set(team.groups.map((g) => g.groupName));
    if (groupNames.size !== team.groups.length)
      problems.push(`team ${team.teamID}: group names repeat`);
    for (const group of team.groups) unique('group', group.groupID);
    for (const member of team.members) {
      unique('member', member.memberID);
      memberIDs.add(member.memberID);
      if (member.groupID !== undefined && !groupIDs.has(member.groupID)) {
        problems.push(`member ${member.memberID}: group ${member.groupID} is not of its team`);
      }
    }
  }
  const tagsById = new Map<string, { sentMs: number; emails: Set<string> }>();
  for (const tag of dataset.tags) {
    unique('tag', tag.tagID);
    if (!memberIDs.has(tag.memberID)) problems.push(`tag ${tag.tagID}: unknown member`);
    if (!SECONDS_TIMESTAMP.test(tag.dateSent)) problems.push(`tag ${tag.tagID}: dateSent format`);
    const emails = new Set(tag.recipients.map((r) => normaliseEmail(r.email)));
    if (emails.size !== tag.recipients.length)
      problems.push(`tag ${tag.tagID}: repeated recipient`);
    tagsById.set(tag.tagID, { sentMs: Date.parse(tag.dateSent), emails });
  }
  for (const [kind, events] of [
    ['open', dataset.opens],
    ['click', dataset.clicks],
  ] as const) {
    for (const e of events) {
      const tag = tagsById.get(e.tagID);
      if (tag === undefined) {
        problems.push(`${kind} of unknown tag ${e.tagID}`);
        continue;
      }
      if (!tag.emails.has(normaliseEmail(e.email))) {
        problems.push(`${kind} of ${JSON.stringify(e.email)}: not a recipient of ${e.tagID}`);
      }
      if (!SECONDS_TIMESTAMP.test(e.date)) problems.push(`${kind} date ${e.date}: format`);
      const delay = Date.parse(e.date) - tag.sentMs;
      if (!(delay > 0 && delay <= MAX_EVENT_DELAY_DAYS * DAY_MS)) {
        problems.push(`${kind} of ${e.tagID} at ${e.date}: not within the days after dateSent`);
      }
    }
  }
  const credentialCount = new Map<string, number>();
  const authIds = new Set<string>();
  for (const c of dataset.credentials) {
    if (!memberIDs.has(c.memberID)) problems.push(`credential ${c.authId}: unknown member`);
    if (!/^[A-Z0-9]{20}$/.test(c.authId)) problems.push(`authId ${c.authId}: shape`);
    if (!/^[0-9a-f]{40}$/.test(c.accessKey)) problems.push(`accessKey of ${c.authId}: shape`);
    if (authIds.has(c.authId)) problems.push(`duplicate authId ${c.authId}`);
    authIds.add(c.authId);
    credentialCount.set(c.memberID, (credentialCount.get(c.memberID) ?? 0) + 1);
  }
  for (const id of memberIDs) {
    if (credentialCount.get(id) !== 1) problems.push(`member ${id}: not exactly one credential`);
  }
  return problems;
}
