/**
 * Word lists of the dataset generator: person names (with non-ASCII letters, apostrophes and
 * hyphens), email domains, team and group names, and tag subjects, some of them hostile to
 * renderers (HTML metacharacters, quotes, tabs, newlines, backslashes, emoji).
 */

/** A display name and the ASCII slug used to build email addresses from it. */
export interface NamePart {
  readonly display: string;
  readonly slug: string;
}

const part = (display: string, slug: string): NamePart => ({ display, slug });

export const FIRST_NAMES: readonly NamePart[] = [
  part('Ana', 'ana'),
  part('Ben', 'ben'),
  part('Chloé', 'chloe'),
  part('Dmitri', 'dmitri'),
  part('Émile', 'emile'),
  part('Fatima', 'fatima'),
  part('Grace', 'grace'),
  part('Hiroshi', 'hiroshi'),
  part('Ines', 'ines'),
  part('José', 'jose'),
  part('Kwame', 'kwame'),
  part('Lena', 'lena'),
  part('Mei', 'mei'),
  part('Noah', 'noah'),
  part('Olivia', 'olivia'),
  part('Priya', 'priya'),
  part('Søren', 'soren'),
  part('Tomás', 'tomas'),
  part('Zoë', 'zoe'),
  part('Åsa', 'asa'),
];

export const LAST_NAMES: readonly NamePart[] = [
  part('Álvarez', 'alvarez'),
  part('Brown', 'brown'),
  part('Chen', 'chen'),
  part("D'Angelo", 'dangelo'),
  part('Eriksson', 'eriksson'),
  part('García', 'garcia'),
  part('Kowalski', 'kowalski'),
  part('Müller', 'muller'),
  part('Nakamura', 'nakamura'),
  part("O'Brien", 'obrien'),
  part('Okafor', 'okafor'),
  part('Patel', 'patel'),
  part('Smith', 'smith'),
  part('Smith-Jones', 'smithjones'),
  part('Ødegaard', 'odegaard'),
  part('van der Berg', 'vanderberg'),
  part('Wójcik', 'wojcik'),
  part('山田', 'yamada'),
];

/** Domains of recipients' addresses (reserved example domains, RFC 2606). */
export const CONTACT_DOMAINS: readonly string[] = [
  'example.com',
  'example.org',
  'example.net',
  'mail.example.co.uk',
  'customers.example.com',
];

export const TEAM_NAMES: readonly string[] = [
  'Acme Sales',
  'Globex Support',
  'Initech Partnerships',
  'Umbrella Recruiting',
  'Hooli Marketing',
  'Stark Procurement',
];

/**
 * Group names. Teams reuse the same names, so a group name alone does not identify a group
 * across teams (spec §4, §6: the group segment resolves within the caller's team). Names
 * contain spaces, non-ASCII letters and an ampersand to exercise path encoding.
 */
export const GROUP_NAMES: readonly string[] = [
  'Key Accounts',
  'Équipe Île-de-France',
  'Inside Sales',
  'R&D Liaison',
  'EMEA',
  'APAC',
  'Renewals',
  'Onboarding',
];

/**
 * Subjects hostile to renderers: HTML metacharacters, quotes, tab, newline, backslash,
 * non-ASCII and astral-plane characters, leading/trailing spaces. The generator gives the
 * first tag of each member one of these, so every dataset with several members holds them.
 */
export const HOSTILE_SUBJECTS: readonly string[] = [
  'Q3 <review> & "plan"\tété 🚀',
  "Line one\nline two: O'Brien's <b>offer</b>",
  '<script>alert("x")</script> & friends',
  'Path C:\\temp\\report; price 5 < 7 && 8 > 3',
  '  Ünïcödé 日本語 — "smart" ‘quotes’ & emoji 👩‍💻  ',
];

export const SUBJECTS: readonly string[] = [
  'Follow-up on our call',
  'Proposal for {company}',
  'Quick question',
  'Your invoice #{n}',
  'Meeting notes – {day}',
  'Re: pricing',
  'Introduction',
  'Checking in',
  'Contract draft v{n}',
  'Webinar invitation: Scaling & Growth',
  'Demo recap',
  'Renewal reminder',
  'Thanks for your time!',
  'Agenda for {day}',
  'Case study: 3× faster onboarding',
  'Café meetup next week?',
  'Q{q} results <confidential>',
  'Re: Re: Fwd: "Urgent" request',
];

export const WEEKDAYS: readonly string[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
