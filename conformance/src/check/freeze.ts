/**
 * Parsed bodies frozen, their short strings interned: what `parseJson` (walk.ts) makes of
 * `JSON.parse`'s value, at once ({@link freezeParsed}) or in steps ({@link freezeSteps}).
 */
import type { Steps } from '@tagtrack/core';

/** Strings at most this long are interned by {@link freezeParsed} (emails, names, cities, ids). */
const INTERNED_MAX_CHARS = 48;
/** Distinct strings the intern table holds at most (then it starts again, empty). */
const INTERNED_MAX = 100_000;
/**
 * One copy of each short string value the run's parsed bodies hold: a long list repeats the
 * same emails, names, devices and cities thousands of times, and JSON.parse makes a string of
 * each occurrence (a third of a parsed event list's memory).
 */
const INTERNED = new Map<string, string>();

/** The one copy of `s` the intern table holds (adding it). */
function interned(s: string): string {
  const known = INTERNED.get(s);
  if (known !== undefined) return known;
  if (INTERNED.size >= INTERNED_MAX) INTERNED.clear();
  INTERNED.set(s, s);
  return s;
}

/**
 * `value` (fresh from JSON.parse), with every object and array in it frozen and its short
 * string values interned (equal strings are indistinguishable: nothing a check reads changes).
 * A frozen value inside it (a part already parsed) is left as it is.
 */
export function freezeParsed<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    // by index: Object.keys of an array makes a string of every index
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'string') {
        if (v.length <= INTERNED_MAX_CHARS) value[i] = interned(v);
      } else freezeParsed(v);
    }
  } else {
    const o = value as Record<string, unknown>;
    // own keys by for-in: no array of keys made per object
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue;
      const v = o[k];
      if (typeof v === 'string') {
        if (v.length <= INTERNED_MAX_CHARS) o[k] = interned(v);
      } else freezeParsed(v);
    }
  }
  return Object.freeze(value);
}

/** Arrays deep, inside a parsed body, past which {@link freezeSteps} freezes without yielding. */
const FREEZE_STEP_ARRAYS = 2;

/**
 * {@link freezeParsed} as {@link Steps}: the same values frozen and the same strings interned
 * in the same order, yielding after each item of the body's outer arrays (a list's records,
 * a record's events), so a long body is frozen in time slices.
 */
export function* freezeSteps<T>(value: T, arrays = 0): Steps<T> {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (arrays >= FREEZE_STEP_ARRAYS) return freezeParsed(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'string') {
        if (v.length <= INTERNED_MAX_CHARS) value[i] = interned(v);
      } else if (arrays + 1 >= FREEZE_STEP_ARRAYS) freezeParsed(v);
      else yield* freezeSteps(v, arrays + 1);
      yield;
    }
  } else {
    const o = value as Record<string, unknown>;
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue;
      const v = o[k];
      if (typeof v === 'string') {
        if (v.length <= INTERNED_MAX_CHARS) o[k] = interned(v);
      } else if (typeof v === 'object' && v !== null) yield* freezeSteps(v, arrays);
    }
  }
  return Object.freeze(value);
}
