/**
 * A check's request log as its calls fill it: an entry reserved when a request goes out (so
 * the log keeps call order) and filled when it is answered, and the credentials it names.
 */
import type { Exchange } from '../../http/client.ts';
import { type CheckScope, flattenLog } from '../failure.ts';

/**
 * Reserves an entry of `scope`'s log now and fills it with what `then` makes of `p`'s value
 * when it resolves (nothing when it rejects). Returns `p`.
 */
export function logWhenDone<T>(
  scope: CheckScope,
  p: Promise<T>,
  then: (value: T) => readonly Exchange[],
): Promise<T> {
  const entry: { exchanges: readonly Exchange[] } = { exchanges: [] };
  scope.log.push(entry);
  p.then(
    (value) => {
      entry.exchanges = then(value);
    },
    () => {},
  );
  return p;
}

/** Labels of the credentials that signed the requests of the logs of `scopes`. */
export function credentialsOf(scopes: Iterable<CheckScope>): ReadonlySet<string> {
  const labels = new Set<string>();
  for (const log of new Set([...scopes].map((s) => s.log)))
    for (const ex of flattenLog(log)) if (ex.credential !== null) labels.add(ex.credential);
  return labels;
}
