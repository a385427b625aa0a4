import { normaliseEmail } from '../dataset/schema.ts';

/** The two lowercase hex digits of each byte value. */
const HEX2 = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function hex8(h: number): string {
  return HEX2[h >>> 24]! + HEX2[(h >>> 16) & 255]! + HEX2[(h >>> 8) & 255]! + HEX2[h & 255]!;
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The contact id of an email (spec §9, §10): 24 lowercase hex characters, a pure-JS
 * deterministic hash of the normalised email (trimmed, lowercased). Three 32-bit FNV-1a
 * lanes (different offset bases and primes) over the UTF-16 code units, each finished with
 * the murmur3 avalanche; not a cryptographic hash. It is also the `recipientID` of events.
 */
export function contactIdOf(email: string): string {
  return contactIdOfNormalised(normaliseEmail(email));
}

/** {@link contactIdOf} of an email that is already normalised (trimmed, lowercased). */
export function contactIdOfNormalised(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x3b9aca07;
  let c = 0x6a09e667;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    a = Math.imul(a ^ u, 0x01000193);
    b = Math.imul(b ^ u, 0x0100019d);
    c = Math.imul(c ^ u, 0x010001b3);
  }
  const n = s.length;
  return hex8(fmix32(a ^ n)) + hex8(fmix32(b ^ Math.imul(a, 0x9e3779b1))) + hex8(fmix32(c ^ b));
}
