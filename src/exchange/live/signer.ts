// Request signing on the client side: the query as sent, and the authentication headers.
import type { Credentials } from '../../domain/credentials.js';

/** Percent-encodes a query component so that a URL parser will not re-encode it (the signed query must be the sent query). */
export function encodeQueryComponent(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Builds the query string in the given key order, skipping undefined values. */
export function buildQuery(params: Record<string, string | number | boolean | undefined> | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    parts.push(`${encodeQueryComponent(k)}=${encodeQueryComponent(String(v))}`);
  }
  return parts.join('&');
}

/** The authentication headers of one request. */
export function authHeaders(creds: Credentials, timestamp: string, signature: string): Record<string, string> {
  return {
    'ACCESS-KEY': creds.apiKey,
    'ACCESS-SIGN': signature,
    'ACCESS-PASSPHRASE': creds.passphrase,
    'ACCESS-TIMESTAMP': timestamp,
  };
}
