import { describe, expect, test } from 'vitest';
import { type Database, openPglite } from '../src/sql/database.ts';

/**
 * `openPglite` starts every database after the first from a copy of a cluster as initdb left
 * it (see `initialisedCluster` in database.ts): each must still be a cluster of its own, the
 * same as a new one, whatever was done in the others and however many are opened at once.
 */

/** What a new cluster looks like: its databases, roles, catalog size, version and zone. */
async function fingerprint(db: Database) {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT (SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database) AS databases,
            (SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles) AS roles,
            (SELECT count(*) FROM pg_class)::int AS relations,
            current_setting('server_version') AS version,
            current_setting('TimeZone') AS zone`,
  );
  return row;
}

describe('PGlite databases of one process', () => {
  test('each is a new cluster: what one creates no other sees, and all have the catalog of a new cluster', async () => {
    const first = await openPglite();
    const fresh = await fingerprint(first);
    await first.exec('CREATE TABLE only_in_first (x int); INSERT INTO only_in_first VALUES (1)');
    // several at once, after the first (so from the copy), each changed in its own way
    const others = await Promise.all([openPglite(), openPglite(), openPglite()]);
    try {
      for (const [i, db] of others.entries()) {
        expect(await fingerprint(db)).toEqual(fresh);
        const [seen] = await db.query<{ t: string | null }>(
          "SELECT to_regclass('only_in_first')::text AS t",
        );
        expect(seen?.t).toBeNull();
        await db.exec(`CREATE TABLE own_${i} (x int)`);
      }
      for (const [i, db] of others.entries()) {
        const tables = await db.query<{ name: string }>(
          "SELECT relname AS name FROM pg_class WHERE relname LIKE 'own\\_%' ORDER BY 1",
        );
        expect(tables.map((t) => t.name)).toEqual([`own_${i}`]);
      }
      expect(await fingerprint(first)).toMatchObject({ zone: 'UTC' });
    } finally {
      await Promise.all([first, ...others].map((db) => db.close()));
    }
  }, 300_000);
});
