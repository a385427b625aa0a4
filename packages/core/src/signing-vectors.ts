/**
 * Test vectors of request signing (spec §3), computed independently of this code base
 * with OpenSSL 3.0 and coreutils, never with `signQuery`:
 *
 *   signature     = printf '%s' "$signed" | openssl dgst -sha1 -hmac "$accessKey"
 *   authorization = printf '%s' "$authId:$signature" | base64 -w0
 *
 * (all strings UTF-8). The core, server and client tests reuse them.
 */

/** One signed request: who signs, what is sent, what is signed, and the expected results. */
export interface SigningVector {
  readonly name: string;
  readonly authId: string;
  readonly accessKey: string;
  /** The query string as sent on the wire, without `?` (`''`: no query string). */
  readonly query: string;
  /**
   * The exact string the signature covers: `query` itself (Node/Python clients) or its
   * percent-decoded form with `+` read as a space (PHP client); both verify (spec §3).
   */
  readonly signed: string;
  /** Lowercase hex HMAC-SHA1 of `signed` keyed with `accessKey`. */
  readonly signature: string;
  /** The `Authorization` header value: base64 of `authId:signature`. */
  readonly authorization: string;
}

/** The vectors; see the module comment for the commands that produced each value. */
export const SIGNING_VECTORS: readonly SigningVector[] = [
  {
    // printf '%s' '' | openssl dgst -sha1 -hmac 'k3y'
    name: 'no query string signs the empty string',
    authId: 'reader-1',
    accessKey: 'k3y',
    query: '',
    signed: '',
    signature: '6e4171878d4a0349b6ecb1b0f6938614515763d2',
    authorization: 'cmVhZGVyLTE6NmU0MTcxODc4ZDRhMDM0OWI2ZWNiMWIwZjY5Mzg2MTQ1MTU3NjNkMg==',
  },
  {
    // printf '%s' 'start=2024-01-01&end=2024-01-31&isOpened=true&rtn=json' \
    //   | openssl dgst -sha1 -hmac 'secret-access-key'
    name: 'plain query string, signed as sent',
    authId: 'reader-1',
    accessKey: 'secret-access-key',
    query: 'start=2024-01-01&end=2024-01-31&isOpened=true&rtn=json',
    signed: 'start=2024-01-01&end=2024-01-31&isOpened=true&rtn=json',
    signature: '675563a27f44e74574263042596a54fe3d88265d',
    authorization: 'cmVhZGVyLTE6Njc1NTYzYTI3ZjQ0ZTc0NTc0MjYzMDQyNTk2YTU0ZmUzZDg4MjY1ZA==',
  },
  {
    // printf '%s' 'total=caf%C3%A9%20%26%20b&rtn=text' | openssl dgst -sha1 -hmac 'secret-access-key'
    name: 'percent-encoded query string, signed encoded (Node/Python style)',
    authId: 'reader-1',
    accessKey: 'secret-access-key',
    query: 'total=caf%C3%A9%20%26%20b&rtn=text',
    signed: 'total=caf%C3%A9%20%26%20b&rtn=text',
    signature: 'e5779b5db9dc8e71d21c7d7a963c290658453ae1',
    authorization: 'cmVhZGVyLTE6ZTU3NzliNWRiOWRjOGU3MWQyMWM3ZDdhOTYzYzI5MDY1ODQ1M2FlMQ==',
  },
  {
    // printf '%s' 'total=café & b&rtn=text' | openssl dgst -sha1 -hmac 'secret-access-key'
    name: 'percent-encoded query string, signed decoded (PHP style)',
    authId: 'reader-1',
    accessKey: 'secret-access-key',
    query: 'total=caf%C3%A9%20%26%20b&rtn=text',
    signed: 'total=café & b&rtn=text',
    signature: '90f8c09189b33011fc315017b012f10346b5ac25',
    authorization: 'cmVhZGVyLTE6OTBmOGMwOTE4OWIzMzAxMWZjMzE1MDE3YjAxMmYxMDM0NmI1YWMyNQ==',
  },
  {
    // printf '%s' 'type=manager&rtn=html' | openssl dgst -sha1 -hmac 'ключ-🔑'
    // printf '%s' 'авто-id:5c5c…e85b' | base64 -w0
    name: 'unicode access key and auth id (UTF-8)',
    authId: 'авто-id',
    accessKey: 'ключ-🔑',
    query: 'type=manager&rtn=html',
    signed: 'type=manager&rtn=html',
    signature: '5c5c3964f9c389cfd60cc255fa71443b23b5e85b',
    authorization: '0LDQstGC0L4taWQ6NWM1YzM5NjRmOWMzODljZmQ2MGNjMjU1ZmE3MTQ0M2IyM2I1ZTg1Yg==',
  },
  {
    // printf '%s' 'total=a b&cursor=250' | openssl dgst -sha1 -hmac 'secret-access-key'
    name: '`+` as a space, signed decoded (PHP http_build_query style)',
    authId: 'reader-1',
    accessKey: 'secret-access-key',
    query: 'total=a+b&cursor=250',
    signed: 'total=a b&cursor=250',
    signature: '2db2661f9ebbbce09d53707b7b14fe649464ea0b',
    authorization: 'cmVhZGVyLTE6MmRiMjY2MWY5ZWJiYmNlMDlkNTM3MDdiN2IxNGZlNjQ5NDY0ZWEwYg==',
  },
  {
    // printf '%s' 'rtn=json&start=2024-01-01' | openssl dgst -sha1 -hmac 'secret-access-key'
    name: 'parameters signed in request order (rtn first)',
    authId: 'reader-1',
    accessKey: 'secret-access-key',
    query: 'rtn=json&start=2024-01-01',
    signed: 'rtn=json&start=2024-01-01',
    signature: '5b5ba039724b1fa9377d622461f867f4af17d130',
    authorization: 'cmVhZGVyLTE6NWI1YmEwMzk3MjRiMWZhOTM3N2Q2MjI0NjFmODY3ZjRhZjE3ZDEzMA==',
  },
  {
    // printf '%s' 'start=2024-01-01&rtn=json' | openssl dgst -sha1 -hmac 'secret-access-key'
    name: 'parameters signed in request order (start first)',
    authId: 'reader-1',
    accessKey: 'secret-access-key',
    query: 'start=2024-01-01&rtn=json',
    signed: 'start=2024-01-01&rtn=json',
    signature: '9cdea8addb593e0e7ca1f336d9ddbb4f560ee99f',
    authorization: 'cmVhZGVyLTE6OWNkZWE4YWRkYjU5M2UwZTdjYTFmMzM2ZDlkZGJiNGY1NjBlZTk5Zg==',
  },
];
