import type { DatasetTag } from '@tagtrack/core';
import { normaliseEmail } from '@tagtrack/core';
import type { Dicts } from './dict.ts';
import { INITIAL_CAPACITY } from './event-store.ts';

/**
 * The recipients of a dataset's tags as columns (spec §10 event log): tag `t`'s recipients
 * are rows `start(t) .. start(t + 1)`, in the order the tag lists them, each its name and
 * email as written (dictionary codes of {@link Dicts.name} and {@link Dicts.email}). Rows are
 * pushed tag by tag ({@link push}, then {@link endTag}). About 8 bytes a recipient. Implements
 * core's `RecipientSource` (tag index, position in the tag's list).
 */
export class RecipientStore {
  /** Rows pushed. */
  length = 0;
  name: Int32Array = new Int32Array(INITIAL_CAPACITY);
  email: Int32Array = new Int32Array(INITIAL_CAPACITY);
  /** Tags ended. */
  tags = 0;
  #start: Int32Array = new Int32Array(INITIAL_CAPACITY);
  #norm: string[] = [];
  #normKey = new Int32Array(0);
  /** Keys of normalised emails that are not in the dictionary themselves. */
  #extraKeys: Map<string, number> | undefined;

  constructor(readonly dicts: Dicts) {}

  /** Appends a recipient (codes of its name and email) to the tag being read. */
  push(name: number, email: number): void {
    const i = this.length;
    if (i === this.name.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(i * 2);
        b.set(a);
        return b;
      };
      this.name = grow(this.name);
      this.email = grow(this.email);
    }
    this.name[i] = name;
    this.email[i] = email;
    this.length = i + 1;
  }

  /** Drops the rows pushed after the first `length` (a record read in part). */
  truncate(length: number): void {
    this.length = Math.min(this.length, length);
  }

  /** Ends the tag being read (its rows: those pushed since the last end); returns its index. */
  endTag(): number {
    const t = this.tags++;
    if (this.tags + 1 > this.#start.length) {
      const b = new Int32Array(this.#start.length * 2);
      b.set(this.#start);
      this.#start = b;
    }
    this.#start[t + 1] = this.length;
    return t;
  }

  /** The columns (cut to the rows; tag `t`'s rows `start[t] .. start[t + 1]`), not copied. */
  columns(): { start: Int32Array; name: Int32Array; email: Int32Array } {
    return {
      start: this.#start.subarray(0, this.tags + 1),
      name: this.name.subarray(0, this.length),
      email: this.email.subarray(0, this.length),
    };
  }

  /** Takes columns as {@link columns} gives them (a snapshot's; checked by its reader). */
  restore(start: Int32Array, name: Int32Array, email: Int32Array): void {
    this.#start = start;
    this.name = name;
    this.email = email;
    this.tags = start.length - 1;
    this.length = name.length;
  }

  /** Frees the spare capacity. */
  trim(): void {
    if (this.name.length === this.length && this.#start.length === this.tags + 1) return;
    this.name = this.name.slice(0, this.length);
    this.email = this.email.slice(0, this.length);
    this.#start = this.#start.slice(0, this.tags + 1);
  }

  /** The first row of tag `t` (its rows: `start(t) .. start(t + 1)`). */
  start(t: number): number {
    return this.#start[t]!;
  }

  /** Recipients of tag `t`. */
  count(t: number): number {
    return this.#start[t + 1]! - this.#start[t]!;
  }

  /** The name of recipient `pos` of tag `t`, as written. */
  nameOf(t: number, pos: number): string {
    return this.dicts.name.values[this.name[this.#start[t]! + pos]!]!;
  }

  /** The email of recipient `pos` of tag `t`, as written. */
  emailOf(t: number, pos: number): string {
    return this.dicts.email.values[this.email[this.#start[t]! + pos]!]!;
  }

  /** The normalised email (the contact key, spec §10) of recipient `pos` of tag `t`. */
  normalisedEmailOf(t: number, pos: number): string {
    return this.normalisedEmail(this.email[this.#start[t]! + pos]!);
  }

  /**
   * `normaliseEmail` of email code `code` (computed once per code; the value itself when it
   * is already normalised, so equal strings are usually the same string).
   */
  normalisedEmail(code: number): string {
    if (code >= this.#norm.length) this.#normalise();
    return this.#norm[code]!;
  }

  /**
   * An integer equal for two recipients exactly when their normalised emails are equal
   * (core's `RecipientSource.normalisedKeyOf`): the email code of the normalised email when
   * it is in the dictionary, else a number above every code.
   */
  normalisedKeyOf(t: number, pos: number): number {
    return this.normalisedKeyOfCode(this.email[this.#start[t]! + pos]!);
  }

  /** {@link normalisedKeyOf} of email code `code` (of {@link Dicts.email}). */
  normalisedKeyOfCode(code: number): number {
    if (code >= this.#norm.length) this.#normalise();
    return this.#normKey[code]!;
  }

  /**
   * Normalises the emails not yet normalised, all at once, into dense arrays (filling them
   * code by code out of order would make a sparse array, slow at millions of emails).
   */
  #normalise(): void {
    const dict = this.dicts.email;
    const values = dict.values;
    const norm = this.#norm;
    const keys = new Int32Array(values.length);
    keys.set(this.#normKey.subarray(0, norm.length));
    for (let c = norm.length; c < values.length; c++) {
      const email = values[c]!;
      const n = normaliseEmail(email);
      if (n === email) {
        norm.push(email);
        keys[c] = c;
        continue;
      }
      norm.push(n);
      let key = dict.find(n);
      if (key === undefined) {
        this.#extraKeys ??= new Map();
        key = this.#extraKeys.get(n);
        if (key === undefined) {
          key = 0x40000000 + this.#extraKeys.size;
          this.#extraKeys.set(n, key);
        }
      }
      keys[c] = key;
    }
    this.#normKey = keys;
  }

  /** Tag `t`'s recipients as the dataset wrote them (new objects). */
  list(t: number): DatasetTag['recipients'] {
    const from = this.#start[t]!;
    const to = this.#start[t + 1]!;
    const d = this.dicts;
    const out: DatasetTag['recipients'] = new Array(to - from);
    for (let i = from; i < to; i++) {
      out[i - from] = {
        name: d.name.values[this.name[i]!]!,
        email: d.email.values[this.email[i]!]!,
      };
    }
    return out;
  }

  /**
   * Tag `t` as a dataset record whose `recipients` (an enumerable getter) are materialised
   * from the columns on each access.
   */
  tag(t: number, tagID: string, memberID: string, subject: string, dateSent: string): DatasetTag {
    const store = this;
    return {
      tagID,
      memberID,
      subject,
      dateSent,
      get recipients() {
        return store.list(t);
      },
    };
  }
}
