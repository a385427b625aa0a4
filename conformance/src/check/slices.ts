/**
 * Work over long lists without holding up the event loop (spec §11, "the event loop keeps
 * turning"): a law of core applied in time slices ({@link applyLaw}) and other long loops run
 * through core's `runInSlices`. A request's deadline, a retry's wait and a stop signal then
 * wait at most one slice (core's `SLICE_MS`), whatever the size of the data.
 */
import { type EndpointId, type Law, runInSlices, type Steps, TimeSlice } from '@tagtrack/core';
import { type ContactIds, comparable } from './compare.ts';

/**
 * `law.check(input)`, run in time slices when the law is written as steps (`Law.steps`: the
 * laws of whole lists), else at once (a law of one record). Resolves the same value:
 * `undefined` when `input` obeys the law, else the violation in domain words.
 */
export function applyLaw<In>(
  law: Law<In>,
  input: In,
  slice: TimeSlice = new TimeSlice(),
): Promise<string | undefined> {
  return law.steps === undefined
    ? Promise.resolve(law.check(input))
    : runInSlices(law.steps(input), slice);
}

/** `steps` run to its end in time slices (core's `runInSlices` with a new slice). */
export function sliced<T>(steps: Steps<T>): Promise<T> {
  return runInSlices(steps, new TimeSlice());
}

/**
 * `f` of each of `items`, those that are not `undefined`, in item order: a map and filter in
 * one, in time slices (the event loop turns between them) for lists of any length.
 */
export async function collect<T, U>(
  items: Iterable<T>,
  f: (item: T) => U | undefined,
  slice: TimeSlice = new TimeSlice(),
): Promise<U[]> {
  const out: U[] = [];
  for (const item of items) {
    const u = f(item);
    if (u !== undefined) out.push(u);
    if (slice.step()) await slice.pause();
  }
  return out;
}

/**
 * `comparable(endpoint, records, contactIds)` (compare.ts) in time slices: record by record
 * where each record is made comparable on its own; an event list of endpoints 10 and 12 (whose
 * ties span records) at once.
 */
export async function comparableInSlices(
  endpoint: EndpointId,
  records: readonly unknown[],
  contactIds: ContactIds = 'keep',
): Promise<unknown[]> {
  if (endpoint === 'opens.tag' || endpoint === 'clicks.tag')
    return comparable(endpoint, records, contactIds);
  return collect(records, (r) => ({ r: comparable(endpoint, [r], contactIds)[0] })).then((out) =>
    out.map((x) => x.r),
  );
}

/** `new Set(items)` in time slices (a step per item; the event loop turns between slices). */
export async function setInSlices<T>(
  items: Iterable<T>,
  slice: TimeSlice = new TimeSlice(),
): Promise<Set<T>> {
  const out = new Set<T>();
  for (const item of items) {
    out.add(item);
    if (slice.step()) await slice.pause();
  }
  return out;
}

/**
 * The first of `items` that `set` lacks, or `undefined` when it holds every one, in time
 * slices (a step per item).
 */
export async function firstNotIn<T>(
  items: Iterable<T>,
  set: ReadonlySet<T>,
  slice: TimeSlice = new TimeSlice(),
): Promise<T | undefined> {
  for (const item of items) {
    if (!set.has(item)) return item;
    if (slice.step()) await slice.pause();
  }
  return undefined;
}
