import type { Dataset, DatasetEvent, DatasetTag } from './schema.ts';
import { normaliseEmail } from './schema.ts';

/**
 * Rules of decisions Revision 2 that a generated dataset does not exercise by chance, added to
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
