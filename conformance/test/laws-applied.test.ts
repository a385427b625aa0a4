import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAWS, lawById, MERGE_LAWS, mergeIsCommutativeMonoid } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { defineCheck, lawCheck, lawOf } from '../src/check/define.ts';
import { ALL_CHECKS } from '../src/checks/index.ts';

/**
 * Each law once: a law of core (`LAWS`) is written in core only, with its id,
 * title, clause and endpoints, and applied by exactly one check of the suite, built from it by
 * `lawCheck`. The suite writes no law id of its own: no string literal in conformance/src is
 * a law's id.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Every .ts file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** The contents of the string literals ('…', "…", `…` without `${`) of a source text. */
function stringLiterals(text: string): string[] {
  return [...text.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`$]*)`/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  );
}

describe('every law of core is applied by one check of the suite, built from the law', () => {
  test.each(LAWS.map((l) => [l.id, l] as const))(
    '%s: exactly one check has its id, built by lawCheck from this law',
    (id, law) => {
      const checks = ALL_CHECKS.filter((c) => c.id === id);
      expect(checks).toHaveLength(1);
      const check = checks[0]!;
      expect(lawOf(check), `${id} is not built by lawCheck`).toBe(law);
      expect(check.title.startsWith(law.title), id).toBe(true);
      expect(check.clause, id).toBe(law.clause);
      expect(check.endpoints, id).toEqual(expect.arrayContaining([...law.endpoints]));
    },
  );

  test('a check built by lawCheck applies a law of LAWS; no other check has a law’s id', () => {
    for (const check of ALL_CHECKS) {
      const law = lawOf(check);
      if (law !== undefined) expect(lawById(law.id), check.id).toBe(law);
      else expect(lawById(check.id), `${check.id} is a law's id`).toBeUndefined();
    }
  });

  test('the merge properties of core are no requirement: no check has their id', () => {
    for (const law of MERGE_LAWS) {
      expect(ALL_CHECKS.map((c) => c.id)).not.toContain(law.id);
    }
  });
});

describe('the suite writes no law id', () => {
  test('no string literal in conformance/src equals the id of a law', () => {
    const ids = new Set([...LAWS, ...MERGE_LAWS].map((l) => l.id));
    const found: string[] = [];
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      for (const literal of stringLiterals(readFileSync(file, 'utf8'))) {
        if (ids.has(literal.trim())) found.push(`${file.slice(SRC.length)}: '${literal}'`);
      }
    }
    expect(found).toEqual([]);
  });

  test('the literal reader finds ids in each quoting style (so the test above can fail)', () => {
    const text = `id: 'AGG-UNIQUE-LE-TOTAL', t: "PAGE-ORDER-TAGS", u: \`REL-RANGE-SPLIT\`, v: \`x\${y}\``;
    expect(stringLiterals(text)).toEqual([
      'AGG-UNIQUE-LE-TOTAL',
      'PAGE-ORDER-TAGS',
      'REL-RANGE-SPLIT',
    ]);
  });
});

describe('lawCheck', () => {
  test('takes id, title, clause and endpoints from the law; reads adds endpoints, also words', () => {
    const check = lawCheck(mergeIsCommutativeMonoid, {
      reads: ['stats.team', 'stats.team'],
      also: 'nothing else',
      async run() {},
    });
    expect(check.id).toBe(mergeIsCommutativeMonoid.id);
    expect(check.area).toBe('agg');
    expect(check.title).toBe(`${mergeIsCommutativeMonoid.title}; also: nothing else`);
    expect(check.clause).toBe(mergeIsCommutativeMonoid.clause);
    expect(check.endpoints).toEqual(['stats.team']);
    expect(lawOf(check)).toBe(mergeIsCommutativeMonoid);
  });

  test('a check written with defineCheck has no law', () => {
    const check = defineCheck({
      id: 'ACME-VERSION-HEADER',
      title: 'a version header',
      clause: 'vendor',
      endpoints: [],
      async run() {},
    });
    expect(lawOf(check)).toBeUndefined();
  });
});
