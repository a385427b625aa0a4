import { newWalkCache } from '../check/context/walk-cache.ts';
import { type Discovery, type RunServices, readOnStillData } from '../check/context.ts';
import type { SuiteCredential } from '../check/define.ts';
import { type CheckCause, type CheckStatus, checkVerdict, withNote } from '../check/outcome.ts';
import {
  type DataMode,
  DEFAULT_ATTEMPTS,
  readable,
  readWatermarks,
  type Watermarks,
  watermarkMove,
} from '../check/watermark.ts';
import type { HttpClient } from '../http/client.ts';
import { ConfigError } from './errors.ts';

/** How a run watched its data (results.json `data`; spec §5 Revision 3). */
export interface DataReport {
  /** The mode in force: the one asked for, else `still` in fixture mode and `auto` in blind. */
  readonly mode: DataMode;
  /** Whether watermarks were watched (mode not `still` and at least one was readable). */
  readonly watching: boolean;
  /** Runs of a failing check made again at most when the data moved (`--attempts`). */
  readonly attempts: number;
  /** Labels of the credentials whose watermark was watched. */
  readonly watermarks: readonly string[];
  /** The first change of a watermark seen during the run, in words; absent when none was seen. */
  readonly moved?: string | undefined;
  /** Checks run again because the data moved under them. */
  readonly rerunChecks: number;
  /** Runs made again, in all. */
  readonly reruns: number;
  /** Requests sent to read watermarks (included in `requests.sent`). */
  readonly watermarkRequests: number;
  /** Why the run did not watch although asked to (`auto` with no readable watermark). */
  readonly note?: string | undefined;
}

/** What running a check gave, as {@link DataWatch.settle} needs it (the runner's outcome). */
export interface Attempted {
  /**
   * The exchanges of its log: the credentials that signed them are those whose data it used,
   * the only ones whose watermark is read for it (absent: every watched credential's).
   */
  readonly exchanges?: readonly { readonly credential: string | null }[] | undefined;
  readonly outcome: {
    /** Why it ended as it did (verdict.ts): a failing cause is what {@link DataWatch.settle} looks at. */
    readonly cause: CheckCause;
    readonly requests: number;
    readonly durationMs: number;
    readonly attempts?: number | undefined;
    /** Its failures: one read on still data ({@link readOnStillData}) lets the failure stand. */
    readonly failures?: readonly object[] | undefined;
  };
}

/** The status an outcome's cause gives (verdict.ts; the expected-failures file aside). */
function statusOf(r: Attempted): CheckStatus {
  return checkVerdict(r.outcome.cause, { expected: false }).status;
}

/** Whether a failing outcome rests on reads made on still data (`CheckContext.onStillData`). */
function failedOnStillData(r: Attempted): boolean {
  return statusOf(r) === 'fail' && (r.outcome.failures ?? []).some(readOnStillData);
}

/** Options of {@link DataWatch.start}. */
export interface DataWatchOptions {
  /** The run's shared services: their HTTP client's cache and walk cache are the shared ones. */
  readonly services: RunServices;
  /** The mode asked for; `undefined`: `still` in fixture mode, `auto` in blind mode. */
  readonly mode: DataMode | undefined;
  /** Runs of a failing check made again at most (default {@link DEFAULT_ATTEMPTS}); >= 1. */
  readonly attempts: number | undefined;
  /** Every declared credential of the run (each one's watermark is read). */
  readonly credentials: readonly SuiteCredential[];
  /** Walks the list endpoints for a credential with `services` (the runner's discovery). */
  readonly discover: (services: RunServices, credential: SuiteCredential) => Promise<Discovery>;
  /** Drops the run's shared discoveries (called with the other shared caches). */
  readonly clearShared: () => void;
  /** Whether the run was stopped (deadline, signal, budget): no attempt is started then. */
  readonly stopped: () => boolean;
}

/**
 * The rule of spec §5 Revision 3 for a run: a verdict of non-conformance rests on
 * responses read while the caller's data did not change. The run reads each credential's
 * watermark once at the start ({@link start}); a check that passes is accepted as it is; a
 * check that fails is given to {@link settle}, which reads the watermarks again and:
 * - when they equal those of the epoch the check started in, lets the failure stand (every
 *   read of the check happened on still data; no more request);
 * - else starts a new epoch (the shared response, walk and discovery caches are dropped: no
 *   answer is served across a seen change) and runs the check again in attempts of its own
 *   (private caches, same seed: same generated inputs, same fast-check seed and path), each
 *   between two watermark reads w0 and w1: a pass is the check's pass, a failure with
 *   w0 = w1 stands, a failure with w0 != w1 tries again, up to `attempts` times; then the
 *   check is `inconclusive` (never a pass, never a fail), its reason saying what moved.
 */
export class DataWatch {
  private mark: Watermarks | undefined;
  private moved: string | undefined;
  private rerunChecks = 0;
  private reruns = 0;
  private watermarkRequests = 0;

  private constructor(
    private readonly options: DataWatchOptions,
    readonly mode: DataMode,
    private readonly attempts: number,
    private readonly note: string | undefined,
  ) {}

  /**
   * Reads W_start (unless the mode is `still`) and starts the first epoch. Throws a
   * ConfigError for `attempts` not a positive integer, and in mode `watch` when no
   * credential's watermark can be read (in `auto` the run then assumes still data, noted).
   */
  static async start(options: DataWatchOptions): Promise<DataWatch> {
    const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    if (!(Number.isInteger(attempts) && attempts > 0))
      throw new ConfigError(`attempts must be a positive integer, got ${attempts}`);
    const mode = options.mode ?? (options.services.env.mode === 'fixture' ? 'still' : 'auto');
    if (mode === 'still') return new DataWatch(options, mode, attempts, undefined);
    const probe = new DataWatch(options, mode, attempts, undefined);
    const marks = await probe.read();
    if (readable(marks).length === 0) {
      const why = [...marks].map(([label, w]) => `${label}: ${String(w)}`).join('; ');
      if (mode === 'watch')
        throw new ConfigError(
          `--data watch needs a watermark (GET /stats?aggregateData=true) and none could be read: ${why}`,
        );
      const watch = new DataWatch(
        options,
        mode,
        attempts,
        `no watermark could be read (${why}): the data is assumed still`,
      );
      watch.watermarkRequests = probe.watermarkRequests;
      return watch;
    }
    probe.mark = marks;
    // responses read before W_start (the preflight's) are not served in its epoch
    probe.advance(marks);
    // a comparison that rests on its own few reads confirms a failure on still data itself
    options.services.still = {
      read: (labels) => probe.read(labels),
      stillSince: (epoch, http, labels) => probe.stillSince(epoch, http, labels),
      attempts,
    };
    return probe;
  }

  /** The epoch of the shared caches now: a check records it when it starts. */
  get epoch(): number {
    return this.options.services.http.epoch;
  }

  /**
   * Whether the data has not moved since epoch `epoch` began (the watermarks read now, once,
   * equal those of the epoch now, and it is still `epoch`): then every answer read since is on
   * still data. A move seen starts a new epoch (the shared caches are dropped). Only for reads
   * through the run's shared client `http`, whose cache holds answers of its epoch alone; a
   * fork's private cache (a check's attempt) outlives epochs: false.
   */
  private async stillSince(
    epoch: number,
    http: HttpClient,
    labels?: ReadonlySet<string>,
  ): Promise<boolean> {
    if (this.mark === undefined || http !== this.options.services.http) return false;
    const now = await this.read(labels);
    if (watermarkMove(only(this.mark, labels), now) !== undefined) {
      this.advance(now);
      return false;
    }
    return epoch === this.epoch;
  }

  /** How the run watched its data, for the result. */
  report(): DataReport {
    return {
      mode: this.mode,
      watching: this.mark !== undefined,
      attempts: this.attempts,
      watermarks: this.mark === undefined ? [] : readable(this.mark),
      ...(this.moved === undefined ? {} : { moved: this.moved }),
      rerunChecks: this.rerunChecks,
      reruns: this.reruns,
      watermarkRequests: this.watermarkRequests,
      ...(this.note === undefined ? {} : { note: this.note }),
    };
  }

  /**
   * The check's result under the rule (see the class): `first` is its run on the shared
   * services, started in epoch `startedIn`; `rerun` runs it again on the services given.
   * Anything but a failure, and any result when not watching, is returned as it is.
   */
  async settle<R extends Attempted>(
    first: R,
    startedIn: number,
    rerun: (services: RunServices) => Promise<R>,
  ): Promise<R> {
    const mark = this.mark;
    if (mark === undefined || statusOf(first) !== 'fail') return first;
    // a failure whose reads were made again between two equal watermarks stands as it is
    if (failedOnStillData(first)) return first;
    // only the watermarks of the credentials whose data the check used (its log's)
    let labels = labelsOf(first);
    let w0 = await this.read(labels);
    const sinceEpoch = watermarkMove(only(mark, labels), w0);
    // still since the epoch began, and every response the check read was read in it
    if (sinceEpoch === undefined && startedIn === this.epoch) return first;
    if (sinceEpoch !== undefined) this.advance(w0);
    let moved = sinceEpoch ?? 'the shared caches were dropped while it ran (the data had changed)';
    this.rerunChecks++;
    let requests = first.outcome.requests;
    let durationMs = first.outcome.durationMs;
    let last: R = first;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (this.options.stopped()) break;
      this.reruns++;
      last = await rerun(this.privateServices());
      requests += last.outcome.requests;
      durationMs += last.outcome.durationMs;
      const runs = attempt + 1;
      const status = statusOf(last);
      if (status === 'pass')
        return this.with(last, {
          requests,
          durationMs,
          attempts: runs,
          cause: withNote(
            last.outcome.cause,
            `passed on run ${runs}: the data changed during the run before (${moved})`,
          ),
        });
      if (status !== 'fail') return this.with(last, { requests, durationMs, attempts: runs });
      const w1 = await this.read(labels);
      const during = watermarkMove(w0, w1);
      if (during === undefined || failedOnStillData(last))
        return this.with(last, {
          requests,
          durationMs,
          attempts: runs,
          cause: withNote(
            last.outcome.cause,
            `failed again on run ${runs}, read while the data was still (it had changed during the run before: ${moved})`,
          ),
        });
      if (this.mark !== undefined && watermarkMove(only(this.mark, labels), w1) !== undefined)
        this.advance(w1);
      moved = during;
      // the next run reads what this one read: its credentials' watermarks (and no fewer)
      const next = labelsOf(last);
      if (labels !== undefined && next !== undefined && [...next].some((l) => !labels!.has(l))) {
        labels = new Set([...labels, ...next]);
        w0 = await this.read(labels);
      } else w0 = w1;
    }
    if (this.options.stopped()) return last;
    const n = this.attempts;
    return this.with(last, {
      cause: {
        kind: 'data-moved',
        reason: `the data changed during each of ${n} attempt${n === 1 ? '' : 's'} (${moved})`,
      },
      requests,
      durationMs,
      attempts: n + 1,
    });
  }

  /** `r` with its outcome's fields replaced by `patch`. */
  private with<R extends Attempted>(r: R, patch: Partial<Attempted['outcome']>): R {
    return { ...r, outcome: { ...r.outcome, ...patch } } as R;
  }

  /**
   * Reads the watermarks (uncached), counting the requests: every declared credential's at the
   * start, then only those that could be read then (the others are not watched).
   */
  private read(labels?: ReadonlySet<string>): Promise<Watermarks> {
    const watched =
      this.mark === undefined
        ? this.options.credentials
        : this.options.credentials.filter((c) => {
            const w = this.mark?.get(c.label);
            return (
              w !== undefined &&
              typeof w !== 'string' &&
              (labels === undefined || labels.has(c.label))
            );
          });
    this.watermarkRequests += watched.length;
    return readWatermarks(this.options.services.http, watched);
  }

  /**
   * A new epoch on watermarks `marks`: the shared response cache, walk cache and discoveries
   * are dropped (nothing read before is served after); the first move seen is kept.
   */
  private advance(read: Watermarks): void {
    // a read of some credentials' watermarks updates theirs; the others' stay as they were
    const marks =
      this.mark === undefined || this.mark === read ? read : new Map([...this.mark, ...read]);
    if (this.mark !== undefined && this.mark !== read)
      this.moved ??= watermarkMove(only(this.mark, new Set(read.keys())), read);
    this.mark = marks;
    const { services, clearShared } = this.options;
    services.http.newEpoch();
    services.walkCache.clear();
    clearShared();
  }

  /** The run's services with caches of their own: a fresh response cache, walks, discoveries. */
  private privateServices(): RunServices {
    const discoveries = new Map<string, Promise<Discovery>>();
    const services: RunServices = {
      ...this.options.services,
      http: this.options.services.http.fork(),
      walkCache: newWalkCache(this.options.services.walkCache.maxBytes),
      discover: (credential) => {
        let p = discoveries.get(credential.authId);
        if (p === undefined) {
          p = this.options.discover(services, credential);
          discoveries.set(credential.authId, p);
        }
        return p;
      },
    };
    return services;
  }
}

/**
 * The labels of the credentials that signed `r`'s exchanges (the credentials whose data it
 * used); undefined when `r` carries no exchanges (then every watched credential counts).
 */
function labelsOf(r: Attempted): ReadonlySet<string> | undefined {
  if (r.exchanges === undefined) return undefined;
  const labels = new Set<string>();
  for (const ex of r.exchanges) if (ex.credential !== null) labels.add(ex.credential);
  return labels;
}

/** `marks` of the credentials `labels` names only (all of them for undefined). */
export function only(marks: Watermarks, labels: ReadonlySet<string> | undefined): Watermarks {
  if (labels === undefined) return marks;
  return new Map([...marks].filter(([label]) => labels.has(label)));
}
