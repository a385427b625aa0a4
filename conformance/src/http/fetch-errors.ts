/**
 * What a failed try of a request was, in words and as a fault: the transport faults a GET or
 * HEAD is retried on (spec §11), a reset connection, an untrusted TLS certificate, an abort's
 * reason as an Error, and a byte count as the `--max-body-bytes` message shows it.
 */
import type { TransportFault } from './retry.ts';

/** `reason` (an abort's) as an Error: itself, or an Error with it in words. */
export function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason ?? 'aborted'));
}

/**
 * The transport fault of what a try threw (a timeout of its own deadline, a reset or closed
 * connection; `reset` for the latter), or undefined for anything else: the run's stop, a
 * refusal of the run guard, a body over the cap, DNS, a refused connection, TLS.
 */
export function transportFault(e: unknown): TransportFault | undefined {
  if (e instanceof Error && e.name === 'TimeoutError') return { cause: 'request timed out' };
  if (isConnectionReset(e)) return { cause: describeFetchError(e), reset: true };
  return undefined;
}

export function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** Whether a fetch failed because the connection was reset or closed under it. */
function isConnectionReset(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/** Error codes of a certificate Node's TLS did not accept (OpenSSL's verify errors, Node's own). */
const TLS_CODE =
  /CERT|SELF_SIGNED|UNABLE_TO_(GET_ISSUER|VERIFY)|ERR_TLS_CERT_ALTNAME|HOSTNAME_MISMATCH/;

export function describeFetchError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return 'request timed out';
  const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined && TLS_CODE.test(cause.code))
    return `TLS: the server's certificate is not trusted: ${cause.code}${cause.message ? ` (${cause.message})` : ''}; --ca-file FILE trusts the CA that signed it, --insecure skips verification`;
  if (cause?.code !== undefined)
    return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  if (cause?.message !== undefined) return `${e.message} (${cause.message})`;
  return e.message;
}
