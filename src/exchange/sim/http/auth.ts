// Authentication of a signed request as the venue checks it: the ACCESS-* headers, content type, key and
// passphrase, a 13-digit timestamp within 30 s of the venue's clock, and the HMAC signature, each failure with
// the venue's code.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../../../domain/credentials.js';
import { sign } from '../../wire/signature.js';
import { WireError } from './request.js';

/** The codes of authentication failures (the simulator counts them). */
const AUTH_CODES: ReadonlySet<string> = new Set(['40001', '40002', '40003', '40005', '40006', '40007', '40008', '40009', '40011', '40012', '40018']);

export function isAuthFailure(code: string): boolean {
  return AUTH_CODES.has(code);
}

/** What the signature covers. */
export interface SignedRequest {
  method: string;
  path: string;
  query: string;
  body: string;
}

/** Throws the venue's refusal unless the request is signed with `credentials`; `nowMs` is the venue's clock. */
export function authenticate(headers: IncomingHttpHeaders, request: SignedRequest, credentials: Credentials, nowMs: number): void {
  const fail = (code: string, msg: string, status = 400): never => {
    throw new WireError(status, code, msg);
  };
  if (!headers['access-key']) fail('40001', 'Header "ACCESS_KEY" is required');
  if (!headers['access-sign']) fail('40002', 'Header "ACCESS_SIGN" is required');
  if (!headers['access-timestamp']) fail('40003', 'Header "ACCESS_TIMESTAMP" is required');
  if (!headers['access-passphrase']) fail('40011', 'Header "ACCESS_PASSPHRASE" is required');
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) fail('40007', 'Invalid Content_Type, use "application/json" format');
  if (!same(String(headers['access-key']), credentials.apiKey)) fail('40006', 'Invalid ACCESS_KEY');
  if (!same(String(headers['access-passphrase']), credentials.passphrase)) fail('40012', 'Incorrect API key/Passphrase');
  const ts = String(headers['access-timestamp']);
  if (!/^\d{13}$/.test(ts)) fail('40005', 'Invalid ACCESS_TIMESTAMP');
  if (Math.abs(Number(ts) - nowMs) > 30_000) fail('40008', 'Request timestamp expired');
  const expected = sign(credentials.apiSecret, ts, request.method, request.path, request.query, request.body);
  if (!same(String(headers['access-sign']), expected)) fail('40009', 'API verification failed');
}

/** Compares secrets in constant time. */
function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
