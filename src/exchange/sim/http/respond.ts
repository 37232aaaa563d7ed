// Writing an answer: the body with its content type and length, and the venue's error envelope.
import type http from 'node:http';
import type { Envelope } from '../../wire/responses.js';

/** Sends the answer unless one was already sent or the connection is gone. */
export function send(res: http.ServerResponse, status: number, body: string, type = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The venue's error envelope (spot and futures errors alike). */
export function errorBody(code: string, msg: string, requestTimeMs: number): string {
  const envelope: Envelope = { code, msg, requestTime: requestTimeMs, data: null };
  return JSON.stringify(envelope);
}
