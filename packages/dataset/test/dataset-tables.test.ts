import { readFile } from 'node:fs/promises';
import { fc, test as fcTest } from '@fast-check/vitest';
import { Dataset } from '@tagtrack/core';
import { arbDataset } from '@tagtrack/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { canonicalDataset } from '../src/canonical.ts';
import { generateDataset } from '../src/generate.ts';
import { datasetJsonSchema, tablesJsonSchema } from '../src/json-schema.ts';
import {
  DatasetTables,
  datasetToTables,
  TABLE_NAMES,
  TABLES,
  TablesError,
  tablesToDataset,
} from '../src/tables.ts';

/** The tables with the rows of every table permuted by sorting on `keys` (a SQL table has no order). */
function permuted(tables: DatasetTables, keys: readonly number[]): DatasetTables {
  const permute = <R>(rows: readonly R[]): R[] =>
    rows
      .map((row, i) => ({ row, key: keys[i % keys.length]! }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.row);
  return Object.fromEntries(
    TABLE_NAMES.map((name) => [name, permute<unknown>(tables[name])]),
  ) as DatasetTables;
}

describe('dataset tables', () => {
  fcTest.prop([arbDataset])('tablesToDataset(datasetToTables(d)) is the identity', (dataset) => {
    expect(tablesToDataset(datasetToTables(dataset))).toEqual(dataset);
  });

  fcTest.prop([arbDataset, fc.array(fc.nat(), { minLength: 1, maxLength: 40 })])(
    'recipients and events in any row order assemble by position: same dataset up to team and tag order',
    (dataset, keys) => {
      const back = tablesToDataset(permuted(datasetToTables(dataset), keys));
      const byTeam = (d: Dataset) =>
        Object.fromEntries(
          d.teams.map((t) => [
            t.teamID,
            { ...t, groups: [...t.groups].sort(cmp), members: [...t.members].sort(cmp) },
          ]),
        );
      const cmp = (a: object, b: object) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
      expect(byTeam(back)).toEqual(byTeam(dataset));
      expect(Object.fromEntries(back.tags.map((t) => [t.tagID, t]))).toEqual(
        Object.fromEntries(dataset.tags.map((t) => [t.tagID, t])),
      );
      expect(back.opens).toEqual(dataset.opens);
      expect(back.clicks).toEqual(dataset.clicks);
      expect([...back.credentials].sort(cmp)).toEqual([...dataset.credentials].sort(cmp));
    },
  );

  fcTest.prop([arbDataset])(
    'every row matches its table schema and lists its columns in TABLES order',
    (dataset) => {
      const tables = datasetToTables(dataset);
      expect(DatasetTables.parse(tables)).toEqual(tables);
      for (const table of TABLES) {
        const names = table.columns.map((c) => c.name);
        for (const row of tables[table.name]) expect(Object.keys(row)).toEqual(names);
      }
    },
  );

  test('the canonical dataset and a generated one round-trip through the tables', () => {
    for (const dataset of [canonicalDataset, generateDataset({ seed: 7, scale: 'tiny' })]) {
      const tables = datasetToTables(dataset);
      expect(tables.opens).toHaveLength(dataset.opens.length);
      expect(tables.recipients).toHaveLength(
        dataset.tags.reduce((n, t) => n + t.recipients.length, 0),
      );
      expect(tables.members.filter((m) => m.groupID === null).length).toBeGreaterThan(0);
      expect(Dataset.parse(tablesToDataset(tables))).toEqual(dataset);
    }
  });

  test('the tables are the eight entities in loading order; each foreign key points back', () => {
    expect(TABLE_NAMES).toEqual([
      'teams',
      'groups',
      'members',
      'credentials',
      'tags',
      'recipients',
      'opens',
      'clicks',
    ]);
    TABLES.forEach((table, i) => {
      for (const fk of table.foreignKeys) {
        const target = TABLES.findIndex((t) => t.name === fk.table);
        expect(target).toBeLessThan(i);
        const cols = TABLES[target]!.columns.map((c) => c.name);
        for (const c of fk.references) expect(cols).toContain(c);
      }
      for (const k of table.primaryKey) {
        const col = table.columns.find((c) => c.name === k);
        expect(col?.nullable).toBe(false);
      }
    });
    const nullable = TABLES.flatMap((t) =>
      t.columns.filter((c) => c.nullable).map((c) => `${t.name}.${c.name}`),
    );
    expect(nullable).toEqual(['members.groupID']);
  });

  test('rows that cannot be placed are reported by table, row and column', () => {
    const tables = datasetToTables(canonicalDataset);
    const broken: DatasetTables = {
      ...tables,
      teams: [...tables.teams, tables.teams[0]!],
      members: [{ ...tables.members[0]!, teamID: 'no-team' }, ...tables.members.slice(1)],
      recipients: [
        ...tables.recipients,
        { ...tables.recipients[0]! },
        { ...tables.recipients[1]!, tagID: 'no-tag' },
      ],
      opens: [{ ...tables.opens[0]!, position: 1 }, ...tables.opens.slice(1)],
    };
    let error: unknown;
    try {
      tablesToDataset(broken);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TablesError);
    const problems = (error as TablesError).problems;
    expect(problems).toContain(`teams[2].teamID: team "${tables.teams[0]!.teamID}" repeated`);
    expect(problems).toContain('members[0].teamID: no team "no-team"');
    expect(problems).toContain(
      `recipients[${tables.recipients.length}].position: position 0 repeated`,
    );
    expect(problems).toContain('opens[1].position: position 1 repeated');
    expect(problems).toContain(
      `recipients[${tables.recipients.length + 1}].tagID: no tag "no-tag"`,
    );
  });
});

describe('JSON Schemas generated from the zod schemas', () => {
  const committed = async (name: string) =>
    JSON.parse(await readFile(new URL(`../${name}`, import.meta.url), 'utf8')) as unknown;

  test('dataset.schema.json and tables.schema.json are what `pnpm generate` writes', async () => {
    expect(await committed('dataset.schema.json')).toEqual(datasetJsonSchema());
    expect(await committed('tables.schema.json')).toEqual(tablesJsonSchema());
  });

  test('the dataset schema requires every field the zod schema requires, and knows the tables', () => {
    const schema = datasetJsonSchema() as {
      $defs: Record<string, { required?: string[]; properties?: Record<string, unknown> }>;
    };
    expect(schema.$defs.Dataset?.required).toEqual([
      'teams',
      'tags',
      'opens',
      'clicks',
      'credentials',
    ]);
    const tables = tablesJsonSchema() as {
      $defs: Record<string, { required?: string[]; properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(tables.$defs.DatasetTables?.properties ?? {})).toEqual(TABLE_NAMES);
    expect(tables.$defs.MemberRow?.required).toContain('groupID');
    expect(tables.$defs.MemberRow?.properties?.groupID).toEqual({
      anyOf: [{ $ref: '#/$defs/Id' }, { type: 'null' }],
    });
  });
});

describe('the JSON Schemas accept what the zod schemas accept (Ajv, draft 2020-12)', () => {
  // formats are not asserted: the timestamp's pattern, generated with it, carries the rule
  const ajv = new Ajv2020({ allErrors: true, validateFormats: false });
  const validDataset = ajv.compile(datasetJsonSchema());
  const validTables = ajv.compile(tablesJsonSchema());

  test('the canonical dataset and its tables validate', () => {
    expect(validDataset(canonicalDataset), ajv.errorsText(validDataset.errors)).toBe(true);
    const tables = datasetToTables(canonicalDataset);
    expect(validTables(tables), ajv.errorsText(validTables.errors)).toBe(true);
  });

  fcTest.prop([arbDataset])('every dataset of arbDataset and its tables validate', (dataset) => {
    expect(validDataset(dataset), ajv.errorsText(validDataset.errors)).toBe(true);
    expect(validTables(datasetToTables(dataset)), ajv.errorsText(validTables.errors)).toBe(true);
  });

  test('what zod refuses is refused, with the path of the field; unknown fields pass both', () => {
    const bad: [string, (d: Dataset) => void, string][] = [
      [
        'an id with a space',
        (d) => {
          d.tags[0]!.tagID = 'no spaces';
        },
        '/tags/0/tagID',
      ],
      [
        'a timestamp with an offset',
        (d) => {
          d.opens[0]!.date = '2024-03-05T14:22:01+01:00';
        },
        '/opens/0/date',
      ],
      [
        'an unknown device',
        (d) => {
          (d.clicks[0] as { device: string }).device = 'phone';
        },
        '/clicks/0/device',
      ],
      [
        'a group without a name',
        (d) => {
          d.teams[0]!.groups[0]!.groupName = '';
        },
        '/teams/0/groups/0/groupName',
      ],
    ];
    for (const [what, breakIt, path] of bad) {
      const dataset = structuredClone(canonicalDataset);
      breakIt(dataset);
      expect(Dataset.safeParse(dataset).success, what).toBe(false);
      expect(validDataset(dataset), what).toBe(false);
      expect(
        validDataset.errors?.map((e) => e.instancePath),
        what,
      ).toContain(path);
    }
    // a field neither schema names is accepted by both (zod drops it)
    const extra = { ...structuredClone(canonicalDataset), note: 'exported by acme' };
    expect(Dataset.parse(extra)).toEqual(canonicalDataset);
    expect(validDataset(extra)).toBe(true);
  });
});
