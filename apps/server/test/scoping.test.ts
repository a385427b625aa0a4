import { contactIdOf, type DatasetMember, normaliseEmail } from '@tagtrack/core';
import { canonicalDataset as ds } from '@tagtrack/dataset/canonical';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { credential, get, getJson, LIST_OK } from './helpers.ts';

const server = createServer();

/**
 * What spec §4 lets a caller see, computed straight from the dataset (not through the
 * index): admin the whole team, manager the own group and self, user self.
 */
function scopeOf(memberID: string) {
  const team = ds.teams.find((t) => t.members.some((m) => m.memberID === memberID))!;
  const self = team.members.find((m) => m.memberID === memberID)!;
  const visible = team.members.filter(
    (m: DatasetMember) =>
      self.accountType === 'admin' ||
      m.memberID === memberID ||
      (self.accountType === 'manager' && self.groupID !== undefined && m.groupID === self.groupID),
  );
  const members = new Set(visible.map((m) => m.memberID));
  const tags = new Set(ds.tags.filter((t) => members.has(t.memberID)).map((t) => t.tagID));
  const contacts = new Set(
    ds.tags
      .filter((t) => tags.has(t.tagID))
      .flatMap((t) => t.recipients.map((r) => contactIdOf(normaliseEmail(r.email)))),
  );
  return { team, members, tags, contacts };
}

const everyMember = ds.teams.flatMap((t) => t.members.map((m) => m.memberID));
// every tag would be slow; take a spread of tags across members and teams
const sampleTags = ds.tags.filter((_, i) => i % 7 === 0).map((t) => t.tagID);
const allContacts = [
  ...new Set(ds.tags.flatMap((t) => t.recipients.map((r) => contactIdOf(r.email)))),
];
const sampleContacts = allContacts.filter((_, i) => i % 5 === 0);

const CALLERS = [
  credential(1, 'admin'),
  credential(1, 'manager'),
  credential(1, 'user'),
  credential(2, 'user'),
];

describe.each(CALLERS)('scope of $label (spec §4)', (cred) => {
  const scope = scopeOf(cred.memberID);

  test('members endpoints (3, 4, 8): 200 exactly for visible members, else 404', async () => {
    for (const id of everyMember) {
      const visible = scope.members.has(id);
      for (const path of [
        `/teams/member/${id}`,
        `/teams/member/${id}/tags`,
        `/teams/stats/member/${id}`,
      ]) {
        const res = await get(server, path, '', { as: cred });
        expect(res.status, `${path} for ${cred.label}`).toBe(visible ? 200 : 404);
      }
    }
  });

  test('/teams lists exactly the visible members', async () => {
    const { body } = await getJson<{ data: { memberID: string }[] }>(server, '/teams', '', {
      as: cred,
    });
    expect(new Set(body.data.map((m) => m.memberID))).toEqual(scope.members);
  });

  test('tag endpoints (10, 12, 14, 17): 200 (204 for an empty list) exactly for visible tags, else 404', async () => {
    for (const id of sampleTags) {
      const visible = scope.tags.has(id);
      for (const [path, query, list] of [
        [`/clicks/tag/${id}`, '', true],
        [`/opens/tag/${id}`, '', true],
        [`/tags/daily/${id}`, 'date=2024-06-01', false],
        [`/contacts/tag/${id}`, '', true],
      ] as const) {
        const res = await get(server, path, query, { as: cred });
        const ok: readonly number[] = list ? LIST_OK : [200];
        expect(ok.includes(res.status), `${path} for ${cred.label}: ${res.status}`).toBe(visible);
        if (!visible) expect(res.status).toBe(404);
      }
    }
  });

  test('/teams/tags lists exactly the visible tags', async () => {
    const { body } = await getJson<{
      data: { tagID: string }[];
      paging: { cursors: { total: number } };
    }>(server, '/teams/tags', '', { as: cred });
    expect(body.paging.cursors.total).toBe(scope.tags.size);
    for (const t of body.data) expect(scope.tags.has(t.tagID)).toBe(true);
  });

  test('contacts (16): 200 exactly for contacts of visible tags, else 404', async () => {
    for (const id of sampleContacts) {
      const res = await get(server, `/contacts/${id}`, '', { as: cred });
      expect(res.status, `/contacts/${id} for ${cred.label}`).toBe(
        scope.contacts.has(id) ? 200 : 404,
      );
    }
  });

  test('contact counters count only visible tags', async () => {
    const { body } = await getJson<{ data: { contactID: string; stats: { totalSent: number } }[] }>(
      server,
      '/contacts',
      '',
      { as: cred },
    );
    for (const c of body.data.slice(0, 20)) {
      const sent = ds.tags.filter(
        (t) =>
          scope.tags.has(t.tagID) && t.recipients.some((r) => contactIdOf(r.email) === c.contactID),
      ).length;
      expect(c.stats.totalSent).toBe(sent);
    }
  });

  test('groups (5, 7): a group of the own team (by id, else name) whose members the caller sees, else 404', async () => {
    const self = scope.team.members.find((m) => m.memberID === cred.memberID)!;
    for (const team of ds.teams) {
      for (const g of team.groups) {
        for (const segment of [g.groupID, g.groupName]) {
          // the segment resolves within the caller's team only: exact id first, else exact name
          const resolved =
            scope.team.groups.find((x) => x.groupID === segment) ??
            scope.team.groups.find((x) => x.groupName === segment);
          const members = scope.team.members.filter((m) => m.groupID === resolved?.groupID);
          const inScope =
            resolved !== undefined &&
            (self.accountType === 'admin' || members.some((m) => scope.members.has(m.memberID)));
          const path = `/teams/group/${encodeURIComponent(segment)}`;
          const res = await get(server, path, '', { as: cred });
          const stats = await get(server, `/teams/stats/group/${encodeURIComponent(segment)}`, '', {
            as: cred,
          });
          expect(res.status, `${path} for ${cred.label}`).toBe(inScope ? 200 : 404);
          expect(stats.status, `stats of ${path} for ${cred.label}`).toBe(inScope ? 200 : 404);
          if (inScope) {
            const body = (await res.json()) as { data: { memberID: string }[] };
            const expected = members
              .filter((m) => scope.members.has(m.memberID))
              .map((m) => m.memberID)
              .sort();
            expect(body.data.map((m) => m.memberID).sort()).toEqual(expected);
          }
        }
      }
    }
  });
});
