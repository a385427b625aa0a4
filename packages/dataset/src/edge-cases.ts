import type { Dataset, DatasetEvent, DatasetTag, DatasetTeam } from '@tagtrack/core';
import { normaliseEmail } from '@tagtrack/core';
import { Prng } from './prng.ts';

/**
 * Rules of profile Revision 2 (docs/spec.md §12) that a generated dataset does not exercise by chance, added to
 * the canonical dataset by {@link withEdgeCases}.
 */
export const EDGE_CASES = [
  'a tag lists one recipient twice, the second time in another spelling (upper case, surrounding spaces): recipients list each normalised email once (§3 Revision 2)',
  'a subject holds a carriage return, alone and in CR LF (text escapes \\r, html writes &#13;: §7 Revision 2)',
  'two groups of the second team share a name: the name resolves to the lowest groupID among the visible ones (§2 Revision 2)',
  'two opens of one tag by different recipients at the same instant: events of equal timestamps come in any order (§3 Revision 2)',
] as const;

/**
 * The canonical dataset's edge cases ({@link EDGE_CASES}), added deterministically to
 * `dataset` without drawing random numbers, so every other record stays as generated. Each
 * change picks the first record (in dataset order) it applies to; a dataset without such a
 * record is left as it is for that case. Figures move little: the duplicate recipient counts
 * once, the subject is not counted, the renamed group keeps its members, and the moved open
 * stays on its UTC day. Returns a new dataset; `dataset` is not modified.
 */
export function withEdgeCases(dataset: Dataset): Dataset {
  const tags = dataset.tags.map((t) => ({ ...t, recipients: [...t.recipients] }));
  const opens = dataset.opens.map((e) => ({ ...e }));
  const teams = dataset.teams.map((t) => ({ ...t, groups: t.groups.map((g) => ({ ...g })) }));

  // 1. a recipient listed twice, the second time in another spelling
  const withRecipients = tags.find(
    (t) => t.recipients.length >= 2 && t.recipients[0]!.email !== '',
  );
  if (withRecipients) {
    const first = withRecipients.recipients[0]!;
    withRecipients.recipients.push({
      name: `${first.name} (again)`,
      email: `  ${first.email.toUpperCase()} `,
    });
  }

  // 2. carriage returns in a subject (the second tag: not the first, changed above)
  const crTag: DatasetTag | undefined = tags[1];
  if (crTag) crTag.subject = `Quarterly figures\rrevised\r\nsee attachment`;

  // 3. two groups of one team with the same name: the second team's second group takes the
  // first one's name (the lower groupID of the two keeps the name for callers who see both)
  const team = teams[1];
  if (team && team.groups.length >= 2) team.groups[1]!.groupName = team.groups[0]!.groupName;

  // 4. two opens of one tag by different recipients at the same instant: an open that is
  // not the first of its recipient moves to an earlier open's instant of the same UTC day
  const firstOpen = new Map<string, string>();
  for (const e of opens) {
    const k = `${e.tagID}\u0000${normaliseEmail(e.email)}`;
    const d = firstOpen.get(k);
    if (d === undefined || e.date < d) firstOpen.set(k, e.date);
  }
  const byTag = new Map<string, DatasetEvent[]>();
  for (const e of opens) byTag.set(e.tagID, [...(byTag.get(e.tagID) ?? []), e]);
  search: for (const events of byTag.values()) {
    for (const later of events) {
      const k = `${later.tagID}\u0000${normaliseEmail(later.email)}`;
      if (firstOpen.get(k) === later.date) continue;
      const earlier = events.find(
        (e) =>
          normaliseEmail(e.email) !== normaliseEmail(later.email) &&
          e.date < later.date &&
          e.date.slice(0, 10) === later.date.slice(0, 10) &&
          e.date > firstOpen.get(k)!,
      );
      if (earlier) {
        later.date = earlier.date;
        break search;
      }
    }
  }

  return { ...dataset, teams, tags, opens };
}

/**
 * Every edge case the profile allows that a generated dataset may lack, for the suite's
 * soundness search (a conforming server must pass on any of them):
 */
export const SOUNDNESS_EDGE_CASES = [
  'every team has two groups of one name (the name resolves to the lower groupID, §2 Revision 2) and an empty group (no member), sometimes with the lower groupID of a shared name',
  'recipients listed twice in another spelling, and events whose email is respelt (case, spaces, tab)',
  'events of one tag at the same instant, by different recipients and by the same one',
  'a carriage return, a tab, a backslash, a newline and a character outside the BMP in subjects, names and group names',
  'managers and users without a group, and a member whose group has no other member',
  'a team with members and credentials but no tag',
  'tags without any event, and two tags of one sender with the same dateSent',
  'events at 23:59:59 and at 00:00:00 UTC (next to a day boundary)',
  'a contact who is a recipient in two teams',
] as const;

const HOSTILE_TEXT = [
  'tab\there',
  'back\\slash',
  'cr\rline',
  'new\nline',
  'emoji 😀 𝄞',
  ' spaced ',
];

/**
 * Applies {@link SOUNDNESS_EDGE_CASES} to `dataset` (any dataset the generator makes, with at
 * least one team, member and tag), choosing records with a PRNG seeded by `seed`: same inputs,
 * same output. New ids are 24 lowercase hex not used before; new credentials get fresh authIds
 * (20 uppercase alphanumerics) and accessKeys. Every event stays strictly after its tag's
 * `dateSent` and names a recipient of its tag, so the result is as valid as the input
 * (`validateDataset`). Returns a new dataset; `dataset` is not modified.
 */
export function withEveryEdgeCase(dataset: Dataset, seed: number): Dataset {
  const rng = new Prng(seed);
  const used = new Set<string>([
    ...dataset.teams.flatMap((t) => [
      t.teamID,
      ...t.groups.map((g) => g.groupID),
      ...t.members.map((m) => m.memberID),
    ]),
    ...dataset.tags.map((t) => t.tagID),
  ]);
  const newId = (below?: string): string => {
    for (;;) {
      // an id below `below` in code-unit order: its first hex digit lower (below starts above '0')
      let id = rng.hex(24);
      if (below !== undefined && below[0] !== '0') {
        const digits = '0123456789abcdef';
        const top = digits.indexOf(below[0]!);
        id = digits[rng.int(top)]! + id.slice(1);
      }
      if (!used.has(id)) {
        used.add(id);
        return id;
      }
    }
  };
  const authIds = new Set(dataset.credentials.map((c) => c.authId));
  const credentials = [...dataset.credentials];
  const credentialFor = (memberID: string) => {
    let authId = rng.chars(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    while (authIds.has(authId)) authId = rng.chars(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    authIds.add(authId);
    credentials.push({ authId, accessKey: rng.hex(40), memberID });
  };
  const hostile = () => rng.pick(HOSTILE_TEXT);

  const teams: DatasetTeam[] = dataset.teams.map((t) => ({
    ...t,
    groups: t.groups.map((g) => ({ ...g })),
    members: t.members.map((m) => ({ ...m })),
  }));
  const tags: DatasetTag[] = dataset.tags.map((t) => ({
    ...t,
    recipients: t.recipients.map((r) => ({ ...r })),
  }));
  const opens: DatasetEvent[] = dataset.opens.map((e) => ({ ...e }));
  const clicks: DatasetEvent[] = dataset.clicks.map((e) => ({ ...e }));
  const sender = new Map<string, string>();
  for (const team of teams) for (const m of team.members) sender.set(m.memberID, team.teamID);

  // 1. groups: a shared name, an empty group; 5. a member alone in its group
  for (const team of teams) {
    const first = team.groups[0];
    const name = first?.groupName ?? `Group ${hostile()}`;
    const emptyBelow = rng.chance(0.5) && first !== undefined;
    team.groups.push({ groupID: newId(emptyBelow ? first.groupID : undefined), groupName: name });
    const twin = { groupID: newId(), groupName: name };
    team.groups.push(twin);
    const loner = team.members.find((m) => m.accountType === 'user');
    if (loner !== undefined) loner.groupID = twin.groupID;
    const noGroup = team.members.find(
      (m) => m.accountType === 'manager' && m.groupID !== undefined,
    );
    if (noGroup !== undefined && team.members.filter((m) => m.accountType === 'manager').length > 1)
      delete noGroup.groupID;
    // 4. hostile text in a group name and member names
    team.groups.push({ groupID: newId(), groupName: `Grp ${hostile()}` });
    const named = rng.pick(team.members);
    named.firstname = `${named.firstname} ${hostile()}`;
    named.lastname = `${hostile()}${named.lastname}`;
  }

  // 6. a team with members and credentials but no tag
  const quiet: DatasetTeam = {
    teamID: newId(),
    name: `Quiet ${hostile()}`,
    groups: [{ groupID: newId(), groupName: 'Quiet group' }],
    members: [],
  };
  for (const [i, accountType] of (['admin', 'manager', 'user', 'user'] as const).entries()) {
    const memberID = newId();
    quiet.members.push({
      memberID,
      firstname: `Q${i}`,
      lastname: i === 3 ? `Lone ${hostile()}` : 'Quiet',
      email: `quiet.${i}@quiet.example.com`,
      accountType,
      ...(i === 1 || i === 2 ? { groupID: quiet.groups[0]!.groupID } : {}),
    });
    credentialFor(memberID);
  }
  teams.push(quiet);

  // 4. hostile subjects and recipient names
  for (let i = 0; i < Math.min(tags.length, 4); i++) {
    const tag = rng.pick(tags);
    tag.subject = `${tag.subject} ${hostile()} ${hostile()}`;
    const r = tag.recipients[0];
    if (r !== undefined) r.name = `${r.name} ${hostile()}`;
  }

  // 2. recipients twice in another spelling; events respelt
  for (let i = 0; i < Math.min(tags.length, 3); i++) {
    const tag = rng.pick(tags);
    const r = tag.recipients[0];
    if (r !== undefined && r.email.trim() !== '')
      tag.recipients.push({ name: `${r.name} (again)`, email: ` ${r.email.toUpperCase()}\t` });
  }
  for (const events of [opens, clicks]) {
    for (let i = 0; i < Math.min(events.length, 4); i++) {
      const e = rng.pick(events);
      e.email = rng.chance(0.5) ? `  ${e.email.toUpperCase()}` : `${e.email}\t`;
    }
  }

  // 3. events at the same instant: a copy of an open at its instant by another recipient of
  // the tag (when that recipient's own first event is not later: it stays a valid open), and
  // a second open of the same recipient at the same instant
  const tagById = new Map(tags.map((t) => [t.tagID, t]));
  for (let i = 0; i < Math.min(opens.length, 3); i++) {
    const e = rng.pick(opens);
    opens.push({ ...e });
    const tag = tagById.get(e.tagID);
    const other = tag?.recipients.find((r) => normaliseEmail(r.email) !== normaliseEmail(e.email));
    if (other !== undefined) opens.push({ ...e, email: other.email });
  }
  if (clicks.length > 0) {
    const c = rng.pick(clicks);
    clicks.push({ ...c });
  }

  // 7. tags without events (recipients, no opens or clicks), two with the same dateSent
  const base = tags[0];
  if (base !== undefined) {
    const quietTag = (dateSent: string): DatasetTag => ({
      tagID: newId(),
      memberID: base.memberID,
      subject: `No answer ${hostile()}`,
      dateSent,
      recipients: base.recipients.map((r) => ({ ...r })),
    });
    tags.push(quietTag(base.dateSent), quietTag(base.dateSent));
    // 9. a contact of one team is a recipient of a tag of another team
    const otherTeam = teams.find(
      (t) => t.teamID !== sender.get(base.memberID) && t.members.length > 0 && t !== quiet,
    );
    if (otherTeam !== undefined) {
      const shared = quietTag(base.dateSent);
      shared.memberID = otherTeam.members[0]!.memberID;
      tags.push(shared);
    }
  }

  // 8. events next to a day boundary: at 23:59:59 and at 00:00:00 of their own UTC day,
  // when that stays strictly after the tag's dateSent
  const sentOf = new Map(tags.map((t) => [t.tagID, t.dateSent]));
  for (const events of [opens, clicks]) {
    for (let i = 0; i < Math.min(events.length, 4); i++) {
      const e = rng.pick(events);
      const day = e.date.slice(0, 10);
      const date = i % 2 === 0 ? `${day}T23:59:59Z` : `${day}T00:00:00Z`;
      if (date > (sentOf.get(e.tagID) ?? date)) e.date = date;
    }
  }

  return { teams, tags, opens, clicks, credentials };
}
