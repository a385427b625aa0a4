import { type Answer, type Caller, type Dataset, plainAnswer } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import type { Oracle } from '../check/define.ts';
import type { Profile } from '../profile/profile.ts';

/**
 * The oracle's answers over core's canonical dataset (a constant of core), by profile option,
 * caller and request, kept across the runs of the process: a fixture run asks about 170
 * questions, nearly the same ones whatever the seed, and the plain rules take up to 150 ms
 * for one. Frozen: a run (or a check of your own) cannot change what the next one is told.
 */
const CANONICAL_ANSWERS = new Map<string, Answer>();

/** Answers kept at most, per oracle memo (the oldest go first). */
const CANONICAL_ANSWERS_MAX = 2000;

/** `value`, with every object and array in it frozen. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Fixture mode's oracle: core's plain rules (`plainAnswer`) over `dataset`, independent of
 * the reference server's engine. A credential's caller is the member of the first dataset
 * credential with its auth id whose member exists (spec §3), when the access key
 * matches. Answers are memoised per caller and request (checks repeat requests; the plain
 * rules recompute every list, about 150 ms for `contacts.list` on the canonical dataset):
 * for the canonical dataset in {@link CANONICAL_ANSWERS}, shared by the runs of the process,
 * for any other dataset per run.
 */
export function makeOracle(dataset: Dataset, profile: Profile): Oracle {
  const members = new Map(
    dataset.teams.flatMap((t) =>
      t.members.map((m) => [m.memberID, { teamID: t.teamID, accountType: m.accountType }]),
    ),
  );
  const credentials = new Map<string, { accessKey: string; caller: Caller }>();
  for (const c of dataset.credentials) {
    const m = members.get(c.memberID);
    if (m !== undefined && !credentials.has(c.authId))
      credentials.set(c.authId, { accessKey: c.accessKey, caller: { memberID: c.memberID, ...m } });
  }
  const answers = dataset === canonicalDataset ? CANONICAL_ANSWERS : new Map<string, Answer>();
  return {
    dataset,
    callerOf(credential) {
      const c = credentials.get(credential.authId);
      return c !== undefined && c.accessKey === credential.accessKey ? c.caller : undefined;
    },
    answer(caller, request) {
      const key = JSON.stringify([
        profile.memberWithoutGroup,
        caller.memberID,
        request.endpoint,
        request.pathParams,
        request.query,
      ]);
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = deepFreeze(
          plainAnswer(dataset, caller, request, {
            memberWithoutGroup: profile.memberWithoutGroup,
          }),
        );
        if (answers.size >= CANONICAL_ANSWERS_MAX) answers.delete(answers.keys().next().value!);
        answers.set(key, answer);
      }
      return answer;
    },
  };
}
