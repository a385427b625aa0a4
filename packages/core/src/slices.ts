/**
 * Long loops in slices, so the event loop keeps turning: a computation over many records is
 * written as a generator that yields (`yield`, no value) between records ({@link Steps}), and
 * is run to its end either at once ({@link runAtOnce}, the plain synchronous form) or in
 * slices of about {@link SLICE_MS} ms with the event loop running in between
 * ({@link runInSlices}), so that timers, I/O and signals (a request's deadline, SIGTERM) wait
 * at most one slice. Browser-safe: the pause is `setImmediate` where it exists, else
 * `setTimeout(0)`.
 *
 * Many loops run at once (checks, batches, answers being read), and one turn of the event
 * loop runs every one of them that is ready: slices of 20 ms each would add up. So the work
 * of a turn is measured too ({@link turnElapsedMs}: since the timers of the turn last ran), a
 * slice also ends when the turn has used up its budget, and {@link turnGate} holds work back
 * until a turn with budget left.
 */

/**
 * A computation that yields between units of work (a record, an event) and returns `T`.
 * Yielding costs a generator resume (tens of nanoseconds); the runner decides when to pause.
 */
export type Steps<T> = Generator<void, T, void>;

/** Milliseconds of synchronous work a slice runs before it lets the event loop turn. */
export const SLICE_MS = 20;

/** Steps between two readings of the clock (the clock costs more than a step). */
export const SLICE_STRIDE = 512;

const setImmediateOf = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;

/**
 * Resolves on a later turn of the event loop, after the I/O and timers already due have run
 * (`setImmediate` in Node, `setTimeout(0)` elsewhere): awaiting it lets them in.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (setImmediateOf !== undefined) setImmediateOf(resolve);
    else setTimeout(resolve, 0);
  });
}

/** Milliseconds of synchronous work one turn of the event loop may hold, summed over its loops. */
export const TURN_MS = SLICE_MS;

/** When the timers of the current turn ran (`performance.now()` ms), and the marker that reads it. */
let turnStart = performance.now();
let markerArmed = false;
let turnWaiters: (() => void)[] = [];

/** Arms a 0 ms timer that marks the start of the next turn (once at a time; only while asked). */
function armMarker(): void {
  if (markerArmed) return;
  markerArmed = true;
  setTimeout(() => {
    markerArmed = false;
    turnStart = performance.now();
    const waiting = turnWaiters;
    turnWaiters = [];
    for (const resume of waiting) resume();
  }, 0);
}

/**
 * Milliseconds since the timers of the current turn of the event loop ran: the synchronous
 * work this turn has held so far, summed over every loop that asks. After a quiet spell
 * (no question during the last turn) it counts from the first question, so work that never
 * asks is not mistaken for a long turn.
 */
export function turnElapsedMs(): number {
  const now = performance.now();
  if (!markerArmed) {
    turnStart = now;
    armMarker();
    return 0;
  }
  return now - turnStart;
}

/** Resolves when the timers of the next turn of the event loop run (a turn with its budget unused). */
export function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    turnWaiters.push(resolve);
    armMarker();
  });
}

/**
 * Resolves at once while the current turn of the event loop has held less than `budgetMs`
 * (default {@link TURN_MS}) of work, else on the first later turn that has: awaited before a
 * unit of work that cannot be cut (parsing and judging one answer), it keeps the units that
 * are ready at the same time from adding up in one turn, so timers (a request's deadline) and
 * I/O wait about `budgetMs` plus one unit at most.
 */
export async function turnGate(budgetMs: number = TURN_MS): Promise<void> {
  while (turnElapsedMs() >= budgetMs) await nextLoopTurn();
}

/**
 * How long slices are: `budgetMs` of work (default {@link SLICE_MS}), the clock read every
 * `stride` steps, or, without `stride`, at a stride that adapts to what a step costs.
 */
export interface SliceOptions {
  /** Milliseconds of work between two pauses; 0 pauses at every reading of the clock. */
  readonly budgetMs?: number;
  /**
   * Steps between two readings of the clock, fixed. Without it the stride adapts: it starts
   * at 1 and doubles (up to {@link SLICE_STRIDE}) while the steps between two readings take
   * less than {@link CLOCK_GAP_MS}, and shrinks when they take more, so a slice of expensive
   * steps (a judgement of a whole tag, a page compared) ends near its budget instead of
   * `SLICE_STRIDE` steps later.
   */
  readonly stride?: number;
  /** The clock in milliseconds (default `performance.now`); a test gives a clock of its own. */
  readonly now?: () => number;
}

/** Milliseconds of work between two readings of the clock an adaptive stride aims at. */
export const CLOCK_GAP_MS = 1;

/**
 * A time slice of synchronous work: {@link step} counts a unit of work and says when the
 * slice is used up; {@link pause} lets the event loop turn and starts the next slice.
 * {@link tick} does both. One slice per loop (its clock starts when it is made).
 */
export class TimeSlice {
  private readonly budgetMs: number;
  private readonly adaptive: boolean;
  private readonly now: () => number;
  /** Whether the slice also ends when the turn's budget is used up (not on a clock of a test's). */
  private readonly perTurn: boolean;
  private stride: number;
  private count = 0;
  private since: number;
  private lastRead: number;
  /** How many times the slice paused so far. */
  pauses = 0;

  constructor(options: SliceOptions = {}) {
    this.budgetMs = options.budgetMs ?? SLICE_MS;
    this.adaptive = options.stride === undefined;
    this.stride = this.adaptive ? 1 : Math.max(1, options.stride ?? SLICE_STRIDE);
    this.now = options.now ?? (() => performance.now());
    this.perTurn = options.now === undefined;
    this.since = this.now();
    this.lastRead = this.since;
  }

  /** Counts one unit of work; true when the slice is used up (the clock is read every `stride` units). */
  step(): boolean {
    if (++this.count < this.stride) return false;
    this.count = 0;
    const now = this.now();
    if (this.adaptive) {
      // steps cost from nanoseconds (a comparison) to milliseconds (a whole tag judged):
      // read the clock about every CLOCK_GAP_MS, whatever they cost
      const gap = now - this.lastRead;
      if (gap < CLOCK_GAP_MS / 2) this.stride = Math.min(SLICE_STRIDE, this.stride * 2);
      else if (gap > CLOCK_GAP_MS * 2)
        this.stride = Math.max(1, Math.floor((this.stride * CLOCK_GAP_MS) / gap));
    }
    this.lastRead = now;
    if (now - this.since >= this.budgetMs) return true;
    // other loops of this turn count too: the turn's budget is shared
    return this.perTurn && turnElapsedMs() >= Math.max(this.budgetMs, TURN_MS);
  }

  /** Lets the event loop turn ({@link nextTurn}) and starts a new slice. */
  async pause(): Promise<void> {
    this.pauses++;
    await nextTurn();
    // the I/O and immediates already due ran; when the turn is still used up (other loops
    // resumed first), wait for the next one
    if (this.perTurn && turnElapsedMs() >= Math.max(this.budgetMs, TURN_MS)) await nextLoopTurn();
    this.since = this.now();
    this.lastRead = this.since;
    this.count = 0;
  }

  /** Counts one unit of work and pauses when the slice is used up. */
  async tick(): Promise<void> {
    if (this.step()) await this.pause();
  }
}

/** Runs `steps` to its end synchronously and returns its value (the plain form). */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs `steps` to its end in slices (see {@link TimeSlice}; `slice` or a new one with the
 * default budget), letting the event loop turn between them, and resolves its value. Same
 * value as {@link runAtOnce}; an exception of `steps` rejects.
 */
export async function runInSlices<T>(
  steps: Steps<T>,
  slice: TimeSlice = new TimeSlice(),
): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (slice.step()) await slice.pause();
  }
}

/**
 * `items` mapped by `f`, one step per item: the sliced form of `Array.prototype.map` for
 * long lists (`yield* mapSteps(list, f)` inside {@link Steps}).
 */
export function* mapSteps<T, U>(items: Iterable<T>, f: (item: T) => U): Steps<U[]> {
  const out: U[] = [];
  for (const item of items) {
    out.push(f(item));
    yield;
  }
  return out;
}
