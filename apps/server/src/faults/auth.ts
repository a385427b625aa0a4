import type { FaultInfo } from './info.ts';

/** Faults of the auth middleware: Authorization forms and signatures (decisions §1). */
export const AUTH_FAULTS = [
  {
    name: 'signature-not-checked',
    area: 'auth',
    description: 'any well-formed signature is accepted for a known authId (decisions §1)',
    detectedBy: ['AUTH-401-WRONG-KEY', 'AUTH-401-SIGNATURE-SCOPE'],
  },
  {
    name: 'unknown-auth-id-message',
    area: 'auth',
    description:
      'an unknown authId answers another 401 message than a wrong signature: an authId oracle (decisions §1 Revision 2)',
    detectedBy: ['AUTH-401-SAME-BODY'],
  },
  {
    name: 'plus-not-space',
    area: 'auth',
    description:
      'the decoded signing form decodes %XX but keeps + (PHP urldecode reads a space) (decisions §1 Revision 2)',
    detectedBy: ['AUTH-ACCEPTS-DECODED-FORM'],
  },
  {
    name: 'hex-case-sensitive',
    area: 'auth',
    description: 'an uppercase hex signature is refused (decisions §1 Revision 2)',
    detectedBy: ['AUTH-HEX-ANY-CASE'],
  },
  {
    name: 'next-not-signed',
    area: 'auth',
    description:
      'a signature over the query without its `next` parameters is accepted too (decisions §1 Revision 2)',
    detectedBy: ['AUTH-401-SIGNATURE-SCOPE'],
  },
  {
    name: 'cursor-not-signed',
    area: 'auth',
    description:
      'a signature over the query without its `cursor` parameter is accepted too, as if the paging layer appended it after signing (decisions §1 Revision 2)',
    detectedBy: ['AUTH-401-SIGNATURE-SCOPE'],
  },
  {
    name: 'auth-unpadded-accepted',
    area: 'auth',
    description:
      'an Authorization value in base64 without its = padding is accepted (decisions §1 Revision 2: strict base64)',
    detectedBy: ['AUTH-HEADER-FORMS'],
  },
  {
    name: 'params-before-auth',
    area: 'auth',
    description:
      'query parameters are validated before the credentials: a bad parameter without valid credentials answers 400, not 401 (decisions §3 Revision 2, order of checks)',
    detectedBy: ['INPUT-ORDER-OF-CHECKS'],
  },
] as const satisfies readonly FaultInfo[];
