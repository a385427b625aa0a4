/** What init reads and infers, shared by `infer.ts` and `credentials.ts`. A leaf. */

/** One inferred value and the answers it rests on, printed as one line. */
export interface Inferred {
  /** The profile field, e.g. `pageSize` or `credentials[team1-admin].accountType`. */
  readonly field: string;
  readonly value: unknown;
  /** The answers that show it, in words (no secret). */
  readonly evidence: string;
}

/** A member record as far as init reads it. */
export interface MemberSeen {
  readonly memberID: string;
  readonly accountType: unknown;
  /** `undefined`: no group field; `''`: an empty group field. */
  readonly groupID: unknown;
  readonly hasGroupField: boolean;
}
