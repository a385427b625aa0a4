/**
 * The property runs of `CheckContext.property`: a fast-check property run with the run's
 * budget and the check's seed (or a replayed seed and path), its shrunk counterexample
 * recorded as a failure of its own, without a secret.
 */
import fc from 'fast-check';
import { type Failure, Violation, type ViolationDetails } from '../failure.ts';
import { STILL_FAILURES } from './services.ts';

/** What a property run needs of its context (see `CheckContext`). */
export interface PropertyHost {
  /** The property's place among the check's `property` calls (from 0). */
  readonly index: number;
  /** The recorded seed and path to replay, if any (see `RunServices.replay`). */
  readonly replay: { readonly seed: number; readonly path?: string | undefined } | undefined;
  readonly numRuns: number;
  /** The check's seed plus its caller's offset. */
  readonly seed: number;
  /** Counts one comparison in the scope active now (a run that held). */
  countComparison(): void;
  failureOf(message: string, details: ViolationDetails): Failure;
  record(failure: Failure): void;
  /** A value with the run's secrets replaced (see `SecretRedactor.replace`). */
  redact(value: unknown): unknown;
}

/**
 * `CheckContext.property`, `predicate` already wrapped for `readsOwn`.
 * Runs a fast-check property with the run's `numRuns` and this check's seed (plus the
 * given `examples`, tried first: edge cases that must always be checked). A
 * {@link Violation} thrown by `predicate` fails the property; the shrunk counterexample,
 * seed and path are recorded with the failing exchange (under a key of its own, so it is
 * never counted on another failure). Other exceptions propagate (error). With
 * `options.readsOwn`, each run's verdict rests only on the reads it makes (see
 * {@link EachOptions.readsOwn}): a failing run is read again on still data when the data moves.
 */
export async function runProperty<T>(
  host: PropertyHost,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  examples: readonly T[],
): Promise<void> {
  const { index, replay } = host;
  const details = await fc.check(
    fc.asyncProperty(arb, async (value) => {
      await predicate(value);
      // a run that held is a comparison made (a failing one counts by its Violation)
      host.countComparison();
    }),
    {
      numRuns: host.numRuns,
      seed: replay?.seed ?? host.seed,
      ...(replay?.path === undefined ? {} : { path: replay.path }),
      endOnFailure: false,
      examples: examples.map((e): [T] => [e]),
    },
  );
  if (!details.failed) return;
  const err = details.errorInstance;
  if (!(err instanceof Violation)) throw err;
  const failure = host.failureOf(err.message, err.details);
  const counterexample: Failure = {
    ...failure,
    // never folded into a loop's failure of the same message: the counterexample reproduces it
    key: `${failure.key} (property)`,
    seed: details.seed,
    path: details.counterexamplePath ?? undefined,
    property: index,
    // a credential drawn by the property is shown by label: never print an access key
    counterexample: JSON.stringify(details.counterexample?.[0], (_k, v) => host.redact(v)),
    numShrinks: details.numShrinks,
  };
  if (STILL_FAILURES.has(failure)) STILL_FAILURES.add(counterexample);
  host.record(counterexample);
}
