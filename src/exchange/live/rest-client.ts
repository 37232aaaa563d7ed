// The one signing base every endpoint method goes through: local request checks, the limiter, signing, the
// transport, the envelope/error interpretation and validation of every answer against its documented shape.
// Reads retry retryable errors with jittered backoff on the clock (spot reads are POSTs too); writes are sent once.
// Consecutive authentication failures on signed requests stop every further signed request locally (the venue
// disables keys after repeated invalid ones).
import type { z } from 'zod';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { ENDPOINTS, type Endpoint, type EndpointId } from '../endpoints.js';
import { ExchangeError, classifyVenueError, refusesKeys } from '../errors.js';
import { parseJson, stringifyJson } from '../wire/json.js';
import type { RequestOf } from '../wire/requests.js';
import { checkRequest } from '../request-checks.js';
import { RESPONSE_SCHEMAS, envelope, type ResponseOf } from '../wire/responses.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Credentials } from '../../domain/credentials.js';
import { sign } from '../wire/signature.js';
import { authHeaders, buildQuery } from './signer.js';
import { TransportError, type Transport, type HttpResponse } from './transport.js';

export interface RestClientOptions {
  spotBaseUrl: string;
  futuresBaseUrl: string;
  credentials?: Credentials;
  locale: string;
  transport: Transport;
  limiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  /** GET retries: attempts in all, and the backoff bounds. */
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number;
  /** Told of every attempt's outcome: 'ok' or the error category (metrics). */
  onAttempt?: (endpoint: EndpointId, outcome: string) => void;
  /** The venue's refusals of our keys in a row (its auth or permission codes, or 521), on signed requests, before signed requests stop (default 3). */
  authFailuresBeforeHalt?: number;
  /**
   * Whether writes may go now (the account lease still held), asked just before a write is signed: the journal's
   * fence guards what is written, this guards what is sent after it was. False: the write is refused unsent.
   */
  writesAllowed?: () => boolean;
}

/** Why signed requests stopped, and when (local clock). */
export interface AuthHalt {
  reason: string;
  atMs: number;
}

const SUCCESS_CODES = new Set(['00000', '200']);

/** Formats a zod issue path the way a reader finds the field: `data.resultList[0].orderId`. */
export function formatPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out.length ? `.${String(p)}` : String(p);
  return out || '(body)';
}

function badResponse(endpoint: EndpointId, status: number, message: string, field?: string, cause?: unknown): ExchangeError {
  return new ExchangeError('bad-response', message, { endpoint, httpStatus: status, field, cause });
}

function snippet(body: string): string {
  const s = body.replace(/\s+/g, ' ').trim();
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

/**
 * Turns an HTTP answer into the endpoint's validated payload, or throws an ExchangeError.
 * Spot answers come in the envelope; futures answers are bare, except errors (enveloped) and a few
 * successes enveloped with code "200".
 */
export function interpretResponse<E extends EndpointId>(id: E, res: HttpResponse): ResponseOf<E> {
  const endpoint = ENDPOINTS[id];
  if (res.status === 429) {
    let msg = 'Too many requests';
    try {
      const b = parseJson(res.body) as { msg?: unknown };
      if (typeof b?.msg === 'string') msg = b.msg;
    } catch {
      /* body is not needed to classify a 429 */
    }
    return throwVenue(id, res.status, '429', msg);
  }
  let body: unknown;
  try {
    body = res.body.length === 0 ? undefined : parseJson(res.body);
  } catch (err) {
    const html = /^\s*</.test(res.body);
    // 521 (IP not whitelisted) comes as a gateway page: its status says it all.
    if (res.status >= 500 && res.status !== 521) {
      throw new ExchangeError('unavailable', `HTTP ${res.status} with a non-JSON body${html ? ' (HTML page)' : ''}: ${snippet(res.body)}`, {
        endpoint: id,
        httpStatus: res.status,
      });
    }
    if (res.status >= 400) return throwVenue(id, res.status, undefined, `HTTP ${res.status}: ${snippet(res.body)}`);
    throw badResponse(id, res.status, `body is not valid JSON (${html ? 'HTML page' : (err as Error).message}): ${snippet(res.body)}`, undefined, err);
  }
  if (body === undefined) {
    if (res.status >= 400) return throwVenue(id, res.status, undefined, undefined);
    throw badResponse(id, res.status, 'empty body');
  }

  const env = isEnvelope(body) ? envelope.safeParse(body) : undefined;
  let payload: unknown;
  let prefix = '';
  if (env?.success) {
    if (!SUCCESS_CODES.has(env.data.code)) return throwVenue(id, res.status, env.data.code, env.data.msg ?? undefined);
    if (res.status >= 400) return throwVenue(id, res.status, env.data.code, env.data.msg ?? undefined);
    if (!('data' in env.data) && endpoint.surface === 'spot') throw badResponse(id, res.status, 'envelope without data', 'data');
    payload = env.data.data;
    prefix = 'data';
  } else {
    if (res.status >= 400) {
      const b = body as Record<string, unknown>;
      const msg = typeof b.msg === 'string' ? b.msg : typeof b.errorMsg === 'string' ? b.errorMsg : typeof b.error === 'string' ? b.error : undefined;
      const code = typeof b.errorMsg === 'string' ? b.errorMsg : undefined;
      return throwVenue(id, res.status, code, msg);
    }
    if (endpoint.surface === 'spot') {
      throw badResponse(id, res.status, `expected the spot envelope {code,msg,requestTime,data}, got ${snippet(res.body)}`);
    }
    payload = body;
  }
  if (res.status < 200 || res.status >= 300) {
    throw badResponse(id, res.status, `unexpected HTTP status ${res.status}`);
  }

  const schema = RESPONSE_SCHEMAS[id] as z.ZodType;
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = formatPath(prefix, issue.path);
    const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more)` : '';
    throw badResponse(id, res.status, `${field}: ${issue.message}${more}`, field);
  }
  return parsed.data as ResponseOf<E>;
}

function isEnvelope(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'code' in body && ('msg' in body || 'data' in body);
}

function throwVenue(id: EndpointId, status: number, code: string | undefined, msg: string | undefined): never {
  throw classifyVenueError(id, status, code, msg);
}

export class RestClient {
  private offsetMs = 0;
  private readonly random: () => number;
  private readonly authFailuresBeforeHalt: number;
  private authFailures = 0;
  private halt: AuthHalt | undefined;
  /**
   * Whether the last answer to a signed request took the keys. Until one has (and again after a refusal), signed
   * requests go one at a time, each counted before the next leaves: the venue disables keys after repeated invalid
   * requests, so no more may be in flight than the halt lets through.
   */
  private keysWork = false;
  private signedTurn: Promise<void> = Promise.resolve();

  constructor(private readonly opts: RestClientOptions) {
    this.random = opts.random ?? Math.random;
    this.authFailuresBeforeHalt = Math.max(1, opts.authFailuresBeforeHalt ?? 3);
  }

  /** Set once signed requests have stopped after repeated authentication failures; cleared by resetAuthHalt() (the operator's `sextant clear-auth-halt`). */
  authHalt(): AuthHalt | undefined {
    return this.halt === undefined ? undefined : { ...this.halt };
  }

  /** Lets signed requests go again (an operator fixed the keys) and clears the failure count. */
  resetAuthHalt(): void {
    if (this.halt) this.opts.logger.warn({ reason: this.halt.reason }, 'authentication halt reset: signed requests go again');
    this.halt = undefined;
    this.authFailures = 0;
  }

  private haltError(id: EndpointId): ExchangeError {
    return new ExchangeError('auth', this.halt!.reason, { endpoint: id, sent: false });
  }

  /** Counts a venue answer to a signed request: the venue's refusals of our keys in a row halt signed requests. */
  private countAuth(endpoint: Endpoint, err: ExchangeError | undefined): void {
    if (!endpoint.auth) return;
    if (err === undefined) {
      this.authFailures = 0;
      this.keysWork = true;
      return;
    }
    // Only the venue's own refusals count: not local ones (no HTTP status), not a proxy's plain 403 (no venue code),
    // not 40008 (timestamp). Other failures neither count nor clear.
    if (!refusesKeys(err)) return;
    this.keysWork = false;
    this.authFailures++;
    if (this.halt || this.authFailures < this.authFailuresBeforeHalt) return;
    const last =
      err.code !== undefined ? `code ${err.code}: ${err.message}` : err.message.startsWith('HTTP ') ? err.message : `HTTP ${err.httpStatus}: ${err.message}`;
    this.halt = {
      reason: `signed requests stopped after ${this.authFailures} authentication errors in a row (last: ${endpoint.id} ${last}); check the API key, secret, passphrase, IP whitelist and permissions, then run \`sextant clear-auth-halt\``,
      atMs: this.opts.clock.now(),
    };
    this.opts.logger.error({ endpoint: endpoint.id, code: err.code, httpStatus: err.httpStatus, failures: this.authFailures }, this.halt.reason);
  }

  /** Milliseconds added to the local clock for ACCESS-TIMESTAMP (set by syncTime). */
  get clockOffsetMs(): number {
    return this.offsetMs;
  }

  /** Calls one endpoint and returns its validated payload. */
  async call<E extends EndpointId>(id: E, params: RequestOf<E>, callOpts: { orders?: number } = {}): Promise<ResponseOf<E>> {
    const endpoint = ENDPOINTS[id];
    checkRequest(id, params);
    if (endpoint.auth && !this.opts.credentials) {
      throw new ExchangeError('auth', 'no API credentials configured (SEXTANT_API_KEY, SEXTANT_API_SECRET, SEXTANT_API_PASSPHRASE)', {
        endpoint: id,
        sent: false,
      });
    }
    if (endpoint.auth && this.halt) throw this.haltError(id);
    const attempts = endpoint.kind === 'read' ? Math.max(1, this.opts.retry.attempts) : 1;
    let resynced = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const out = await this.counted(endpoint, params, callOpts.orders ?? 1);
        this.opts.onAttempt?.(id, 'ok');
        return out;
      } catch (err) {
        if (!(err instanceof ExchangeError)) throw err;
        this.opts.onAttempt?.(id, err.category);
        if (err.category === 'rate-limit') await this.opts.limiter.onRateLimited(endpoint.surface);
        if (err.category === 'timestamp' && !resynced) {
          resynced = true;
          await this.syncTime(endpoint.surface).catch((e: unknown) => this.opts.logger.warn({ err: String(e) }, 'clock sync failed'));
        }
        const log = { endpoint: id, attempt, category: err.category, code: err.code, httpStatus: err.httpStatus, field: err.field };
        if (!err.retryable || attempt >= attempts) {
          this.opts.logger.warn({ ...log, outcomeUnknown: err.outcomeUnknown }, err.message);
          throw err;
        }
        const delayMs = this.backoffMs(attempt);
        this.opts.logger.info({ ...log, retryInMs: delayMs }, `retrying: ${err.message}`);
        await this.opts.clock.sleep(delayMs);
      }
    }
  }

  private backoffMs(attempt: number): number {
    const cap = Math.min(this.opts.retry.maxDelayMs, this.opts.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(cap / 2 + (cap / 2) * this.random());
  }

  /**
   * One attempt, its answer counted for the authentication halt. While the keys are unproven, a signed request takes
   * its turn once the limiter lets it go (so in the limiter's priority order) and holds it until its answer is
   * counted: the next one sees the count, and a halt reached meanwhile stops it unsent.
   */
  private async counted<E extends EndpointId>(endpoint: Endpoint, params: RequestOf<E>, orders: number): Promise<ResponseOf<E>> {
    let done: (() => void) | undefined;
    const takeTurn = async () => {
      if (!endpoint.auth || this.keysWork) return;
      const before = this.signedTurn;
      this.signedTurn = new Promise((resolve) => (done = resolve));
      await before;
    };
    try {
      const out = await this.once<E>(endpoint, params, orders, takeTurn);
      this.countAuth(endpoint, undefined);
      return out;
    } catch (err) {
      if (err instanceof ExchangeError) this.countAuth(endpoint, err);
      throw err;
    } finally {
      done?.();
    }
  }

  private async once<E extends EndpointId>(endpoint: Endpoint, params: RequestOf<E>, orders: number, beforeSend: () => Promise<void>): Promise<ResponseOf<E>> {
    const id = endpoint.id as E;
    const base = endpoint.surface === 'spot' ? this.opts.spotBaseUrl : this.opts.futuresBaseUrl;
    const query = endpoint.method === 'GET' ? buildQuery(params as Record<string, string | number | undefined>) : '';
    const body = endpoint.method === 'POST' ? stringifyJson(params) : '';
    const url = `${base.replace(/\/+$/, '')}${endpoint.path}${query ? `?${query}` : ''}`;
    const res = await this.opts.limiter.schedule(
      endpoint,
      async () => {
        await beforeSend();
        // A request queued in the limiter (or for its turn) when signed requests stopped does not go out either.
        if (endpoint.auth && this.halt) throw this.haltError(id);
        if (endpoint.kind !== 'read' && this.opts.writesAllowed && !this.opts.writesAllowed()) {
          throw new ExchangeError('permission', 'not sent: this daemon no longer holds the account lease', { endpoint: id, sent: false });
        }
        const headers: Record<string, string> = { 'Content-Type': 'application/json', locale: this.opts.locale };
        if (endpoint.auth && this.opts.credentials) {
          const ts = String(Math.round(this.opts.clock.now() + this.offsetMs));
          Object.assign(
            headers,
            authHeaders(this.opts.credentials, ts, sign(this.opts.credentials.apiSecret, ts, endpoint.method, endpoint.path, query, body)),
          );
        }
        try {
          return await this.opts.transport.send({ method: endpoint.method, url, headers, ...(endpoint.method === 'POST' ? { body } : {}) });
        } catch (err) {
          if (err instanceof TransportError) {
            throw new ExchangeError(err.kind, err.message, { endpoint: id, sent: err.sent, code: err.code });
          }
          throw err;
        }
      },
      orders,
    );
    return interpretResponse(id, res);
  }

  /** Measures the offset between the venue's clock and ours (S0 / F0), halving the round trip. */
  async syncTime(surface: 'spot' | 'futures'): Promise<number> {
    const t0 = this.opts.clock.now();
    const server = surface === 'spot' ? Number(await this.call('S0', {})) : (await this.call('F0', {})).timestamp;
    const t1 = this.opts.clock.now();
    this.offsetMs = server - (t0 + t1) / 2;
    this.opts.logger.info({ surface, offsetMs: Math.round(this.offsetMs) }, 'clock offset measured');
    return this.offsetMs;
  }
}
