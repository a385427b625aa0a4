import * as z from 'zod';
import { Id } from './values.ts';

/** The three account types of the source document (Authentication; spec §4). */
export const AccountType = z.enum(['admin', 'manager', 'user']).meta({ id: 'AccountType' });
export type AccountType = z.infer<typeof AccountType>;

/**
 * A team member as endpoints 1, 3 and 5 return it (source: "Team member").
 * `groupID` and `groupName` are omitted for a member without a group (spec §9;
 * the profile option `memberWithoutGroup: "empty"` sends empty strings instead).
 */
export const TeamMember = z
  .object({
    memberID: Id.describe('The member'),
    firstname: z.string().describe('First name'),
    lastname: z.string().describe('Last name'),
    email: z.string().describe('Email address'),
    accountType: AccountType.describe('Account type: what the member sees (spec §4)'),
    groupID: z
      .string()
      .optional()
      .describe(
        "The member's group; omitted when the member has none (empty string with the profile option memberWithoutGroup: empty; spec §9)",
      ),
    groupName: z
      .string()
      .optional()
      .describe("The group's name; omitted (or empty) like groupID (spec §9)"),
  })
  .meta({ id: 'TeamMember' });
export type TeamMember = z.infer<typeof TeamMember>;

/** A group of a team: id and name (source: endpoints 5 and 7). */
export const Group = z.object({ groupID: Id, groupName: z.string().min(1) }).meta({ id: 'Group' });
export type Group = z.infer<typeof Group>;
