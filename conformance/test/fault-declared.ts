/**
 * The requirements each fault declares per mode of the fault matrix, in a module of its own
 * (no vitest) so that scripts can use it too (`scripts/store-faults-at-scale.ts`).
 */
import type { FaultInfo } from '@tagtrack/server';

/**
 * The modes of the matrix: fixture mode; blind mode with one admin credential; blind mode
 * with the canonical profile's twelve credentials declared (`blind-declared`).
 */
export type MatrixMode = 'fixture' | 'blind' | 'blind-declared';

/** The ids a fault declares for `mode`, or the reason it is unobservable there. */
export function declaredFor(
  fault: FaultInfo,
  mode: MatrixMode,
): readonly string[] | { unobservable: string } {
  if (mode === 'fixture') return fault.detectedBy;
  if (mode === 'blind') return fault.blind ?? fault.detectedBy;
  if (fault.blindDeclared !== undefined) return fault.blindDeclared;
  // what fixture mode and one admin credential catch it by, but the exact answers of the dataset
  const ids = [...fault.detectedBy, ...(Array.isArray(fault.blind) ? fault.blind : [])];
  return [...new Set(ids.filter((id) => !id.startsWith('ORACLE-')))];
}
