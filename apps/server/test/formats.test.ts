import { type Dataset, parseHtml, parseText } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { get } from './helpers.ts';

const HOSTILE = '<script>alert("x&y")</script>\t<b>bold</b>\nnext line \\ done';

/** The canonical dataset with team 1's newest tag's subject replaced by hostile content. */
function hostileDataset(): { dataset: Dataset; tagID: string } {
  const team1 = new Set(canonicalDataset.teams[0]!.members.map((m) => m.memberID));
  const tags = canonicalDataset.tags
    .filter((t) => team1.has(t.memberID))
    .sort((a, b) => b.dateSent.localeCompare(a.dateSent));
  const target = tags[0]!;
  return {
    tagID: target.tagID,
    dataset: {
      ...canonicalDataset,
      tags: canonicalDataset.tags.map((t) => (t === target ? { ...t, subject: HOSTILE } : t)),
    },
  };
}

describe('rtn=text and rtn=html (spec §8)', () => {
  const { dataset, tagID } = hostileDataset();
  const server = createServer({ dataset });

  test('rtn=html escapes a hostile subject and parses back to it', async () => {
    const res = await get(server, '/teams/tags', 'rtn=html');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>bold');
    expect(html).toContain('&lt;script&gt;');
    const table = parseHtml(html);
    const row = table.rows.find((r) => r[table.columns.indexOf('tagID')] === tagID)!;
    expect(row[table.columns.indexOf('subject')]).toBe(HOSTILE);
  });

  test('rtn=text escapes tabs, newlines and backslashes inside values', async () => {
    const res = await get(server, '/teams/tags', 'rtn=text');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('<script>alert("x&y")</script>\\t<b>bold</b>\\nnext line \\\\ done');
    const lines = text.split('\n').filter((l) => l !== '');
    const total = Number(res.headers.get('x-total-count'));
    expect(lines).toHaveLength(Math.min(total, 250) + 1);
    const columns = lines[0]!.split('\t').length;
    for (const line of lines) expect(line.split('\t')).toHaveLength(columns);
    const table = parseText(text);
    const row = table.rows.find((r) => r[table.columns.indexOf('tagID')] === tagID)!;
    expect(row[table.columns.indexOf('subject')]).toBe(HOSTILE);
  });
});
