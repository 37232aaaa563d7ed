// The venue's request signature, shared by the client that signs and the simulator that verifies:
// Base64(HMAC-SHA256(secret, timestamp + METHOD + path + ("?" + query if any) + body)).
import { createHmac } from 'node:crypto';

/** The exact string the venue signs. No "?" when the query is empty; body is the exact bytes sent ("" for GET). */
export function prehash(timestamp: string, method: string, path: string, query: string, body: string): string {
  return `${timestamp}${method.toUpperCase()}${path}${query.length > 0 ? `?${query}` : ''}${body}`;
}

export function sign(secret: string, timestamp: string, method: string, path: string, query: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(prehash(timestamp, method, path, query, body), 'utf8')
    .digest('base64');
}
