import { compareStrings, type Dataset, normaliseEmail } from '@tagtrack/core';

/** The cases {@link withRevision3Cases} adds, one line each. */
export const REVISION_3_CASES = [
  'two tags of one sender of the first team sent at the same second, the one later in the dataset with the greater tagID (§3 Revision 3: order by the values as shown)',
  "a recipient of a first-team tag with an open listed twice: first re-spelled (upper case, spaces), then in the normalised spelling with another name (§8 Revision 3: an event's recipient is named by the first entry)",
] as const;

/**
 * `dataset` (the canonical one, say) plus the two cases of profile Revision 3 (docs/spec.md §12)
 * ({@link REVISION_3_CASES}) that the canonical dataset does not hold, for the fault and
 * variant matrices of those rules (the canonical dataset itself stays as it is: its figures
 * are fixture expectations elsewhere). Both cases are on the first team, whose admin is the
 * blind-mode credential of the matrices, so blind mode sees them too:
 *
 * 1. **Equal `dateSent`** (spec §5 Revision 3: order by the values as shown). Two tags of
 *    one member are sent at the same second: the later-sent one takes the earlier one's
 *    `dateSent` (its events stay after it). The pair is chosen so that the tag later in the
 *    dataset has the greater `tagID`: an implementation that breaks the tie by storage order
 *    (newest stored first, as the fault `order-hidden-subsecond` does) leaves `tagID` order.
 * 2. **A recipient listed twice with events** (spec §9 Revision 3: an event's recipient
 *    is named by the tag's first entry with its normalised email). On a tag with an open,
 *    the opener's entry is re-spelled (upper case, surrounding spaces) and a second entry of
 *    the same email, in its normalised spelling and with another name, is appended.
 *
 * Deterministic, no random draw; a dataset without such records is left as it is for that
 * case. Credentials are kept (a profile of `dataset` applies). Returns a new dataset.
 */
export function withRevision3Cases(base: Dataset): Dataset {
  const tags = base.tags.map((t) => ({ ...t, recipients: [...t.recipients] }));
  const team = new Set(base.teams[0]!.members.map((m) => m.memberID));

  // 1. a tie of dateSent between two tags of one member
  const byMember = new Map<string, number[]>();
  tags.forEach((t, i) => {
    if (team.has(t.memberID)) byMember.set(t.memberID, [...(byMember.get(t.memberID) ?? []), i]);
  });
  tie: for (const indexes of byMember.values()) {
    for (const [n, i] of indexes.entries()) {
      for (const j of indexes.slice(n + 1)) {
        const [a, b] = [tags[i]!, tags[j]!];
        if (compareStrings(a.tagID, b.tagID) >= 0 || a.dateSent === b.dateSent) continue;
        const earlier = Date.parse(a.dateSent) < Date.parse(b.dateSent) ? a : b;
        const later = earlier === a ? b : a;
        later.dateSent = earlier.dateSent;
        break tie;
      }
    }
  }

  // 2. the opener of a team tag listed twice, first re-spelled, then normalised and renamed
  const opened = base.opens.find((e) => team.has(tags.find((t) => t.tagID === e.tagID)!.memberID));
  if (opened !== undefined) {
    const tag = tags.find((t) => t.tagID === opened.tagID)!;
    const email = normaliseEmail(opened.email);
    const at = tag.recipients.findIndex((r) => normaliseEmail(r.email) === email);
    const entry = tag.recipients[at]!;
    tag.recipients[at] = { name: entry.name, email: `  ${email.toUpperCase()} ` };
    tag.recipients.push({ name: `${entry.name} (listed again)`, email });
  }
  return { ...base, tags };
}
