import * as z from 'zod';
import { Id } from './values.ts';

/** The three account types of the source document (Authentication; decisions §2). */
export const AccountType = z.enum(['admin', 'manager', 'user']).meta({ id: 'AccountType' });
export type AccountType = z.infer<typeof AccountType>;

/**
 * A team member as endpoints 1, 3 and 5 return it (source: "Team member").
 * `groupID` and `groupName` are omitted for a member without a group (decisions §8;
 * the profile option `memberWithoutGroup: "empty"` sends empty strings instead).
 */
export const TeamMember = z
  .object({
    memberID: Id,
    firstname: z.string(),
    lastname: z.string(),
    email: z.string(),
    accountType: AccountType,
    groupID: z.string().optional(),
    groupName: z.string().optional(),
  })
  .meta({ id: 'TeamMember' });
export type TeamMember = z.infer<typeof TeamMember>;

/** A group of a team: id and name (source: endpoints 5 and 7). */
export const Group = z.object({ groupID: Id, groupName: z.string().min(1) }).meta({ id: 'Group' });
export type Group = z.infer<typeof Group>;
