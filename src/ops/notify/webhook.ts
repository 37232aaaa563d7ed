// The HTTP senders: a generic webhook (a JSON POST signed with HMAC-SHA256 of its body, the timestamp inside the
// signed body and in a header) and a Discord webhook (`{content}`). One request per try, timed out through the
// clock; the channel retries what is retryable.
import { createHmac } from 'node:crypto';
import type { Clock } from '../../util/clock.js';
import { SendError, type Sender } from './channel.js';
import type { Notice } from './notice.js';

/** The signature header: `sha256=<hex HMAC-SHA256 of the raw body with the shared secret>`. */
export const SIGNATURE_HEADER = 'x-sextant-signature';
/** Milliseconds since the epoch when the body was signed; the same value is the body's `timestamp`. */
export const TIMESTAMP_HEADER = 'x-sextant-timestamp';

/** The value of the signature header for `body` (what a receiver computes to check it). */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** What a webhook receiver gets, as JSON. */
export interface WebhookPayload {
  /** When it was signed, ms since the epoch (also the timestamp header): receivers may refuse stale ones. */
  timestamp: number;
  channel: string;
  topic: Notice['topic'];
  text: string;
  atMs: number;
  strategyId: string | null;
  /** The control event it came from (kind, text, data), when it came from one. */
  event?: { kind: string; atMs: number; text: string; data: Record<string, unknown> };
}

/** Milliseconds of a Retry-After header given in seconds; undefined when absent or not a number. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

/**
 * POSTs `body` as JSON and settles when the receiver answered 2xx. Throws a SendError: retryable for a network
 * error, a timeout, 408, 429 and 5xx; not for other answers. The error text never carries the URL.
 */
export async function postJson(url: string, body: string, headers: Record<string, string>, clock: Clock, timeoutMs: number): Promise<void> {
  const abort = new AbortController();
  const timer = clock.setTimer(() => abort.abort(), timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: abort.signal });
    // The answer's body is read (and dropped) so the connection can be used again.
    await res.arrayBuffer().catch(() => undefined);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    throw new SendError(abort.signal.aborted ? `no answer within ${timeoutMs} ms` : `request failed${cause ? `: ${cause}` : ''}`, true);
  } finally {
    timer.cancel();
  }
  if (res.ok) return;
  const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
  throw new SendError(`answered HTTP ${res.status}`, retryable, retryable ? retryAfterMs(res.headers.get('retry-after')) : undefined);
}

/** A generic webhook: the notice and its event as JSON, signed. */
export function webhookSender(opts: { channel: string; url: string; secret: string; clock: Clock; timeoutMs: number }): Sender {
  return {
    send: async (notice) => {
      const timestamp = opts.clock.now();
      const payload: WebhookPayload = {
        timestamp,
        channel: opts.channel,
        topic: notice.topic,
        text: notice.text,
        atMs: notice.atMs,
        strategyId: notice.strategyId,
        ...(notice.event ? { event: { kind: notice.event.kind, atMs: notice.event.atMs, text: notice.event.text, data: notice.event.data } } : {}),
      };
      const body = JSON.stringify(payload);
      await postJson(opts.url, body, { [SIGNATURE_HEADER]: signatureOf(opts.secret, body), [TIMESTAMP_HEADER]: String(timestamp) }, opts.clock, opts.timeoutMs);
    },
  };
}

/** Discord takes at most this many characters of content. */
const DISCORD_MAX = 2000;

/** A Discord webhook: `{content}` (cut to Discord's length). */
export function discordSender(opts: { url: string; clock: Clock; timeoutMs: number }): Sender {
  return {
    send: async (notice) => {
      const content = notice.text.length > DISCORD_MAX ? `${notice.text.slice(0, DISCORD_MAX - 1)}…` : notice.text;
      await postJson(opts.url, JSON.stringify({ content }), {}, opts.clock, opts.timeoutMs);
    },
  };
}
