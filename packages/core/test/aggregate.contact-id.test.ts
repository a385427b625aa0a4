import { fc, test as fcTest } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { contactIdOf, contactIdOfNormalised } from '../src/aggregate/contact-id.ts';
import { normaliseEmail } from '../src/dataset/schema.ts';

fcTest.prop([fc.string({ unit: 'grapheme', maxLength: 30 })])(
  'contactIdOf is 24 lowercase hex chars and depends only on the normalised email',
  (email) => {
    const id = contactIdOf(email);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(contactIdOf(`  ${email.toUpperCase()} `)).toBe(contactIdOf(email.toUpperCase()));
    expect(contactIdOfNormalised(normaliseEmail(email))).toBe(id);
  },
);

it('contactIdOf gives distinct ids to 20,000 distinct emails, the same id to spellings of one', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 20_000; i++) ids.add(contactIdOf(`user${i}@example.com`));
  expect(ids.size).toBe(20_000);
  expect(contactIdOf(' Ann@Example.COM\t')).toBe(contactIdOf('ann@example.com'));
  expect(contactIdOf('ann@example.com')).not.toBe(contactIdOf('anne@example.com'));
});
