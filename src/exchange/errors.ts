// The ExchangeError tree and the venue code -> class table: what failed, whether it may be retried,
// and whether a write's outcome is unknown (the venue may have acted).
import { scrubSecrets } from '../util/secrets.js';
import { ENDPOINTS, type EndpointId } from './endpoints.js';

export type ErrorCategory =
  | 'auth'
  | 'permission'
  | 'bad-request'
  | 'invalid-order'
  | 'not-found'
  | 'insufficient-funds'
  | 'timestamp'
  | 'rate-limit'
  | 'network'
  | 'timeout'
  | 'unavailable'
  | 'bad-response'
  | 'unknown';

interface CategoryTraits {
  retryable: boolean;
  /** For a write: the venue may have acted although we got no success answer. */
  mayHaveActed: boolean;
}

const TRAITS: Record<ErrorCategory, CategoryTraits> = {
  auth: { retryable: false, mayHaveActed: false },
  permission: { retryable: false, mayHaveActed: false },
  'bad-request': { retryable: false, mayHaveActed: false },
  'invalid-order': { retryable: false, mayHaveActed: false },
  'not-found': { retryable: false, mayHaveActed: false },
  'insufficient-funds': { retryable: false, mayHaveActed: false },
  // 40008: rejected before processing; safe to resend once the clock offset is corrected.
  timestamp: { retryable: true, mayHaveActed: false },
  // 429: the request was refused; resend after the cool-off.
  'rate-limit': { retryable: true, mayHaveActed: false },
  network: { retryable: true, mayHaveActed: true },
  timeout: { retryable: true, mayHaveActed: true },
  unavailable: { retryable: true, mayHaveActed: true },
  'bad-response': { retryable: true, mayHaveActed: true },
  // A code we do not know: never retried blindly, and a write is resolved by query, not assumed rejected.
  unknown: { retryable: false, mayHaveActed: true },
};

export interface ExchangeErrorDetails {
  endpoint: EndpointId;
  httpStatus?: number;
  code?: string;
  venueMessage?: string;
  /** For malformed responses: the field path that failed validation, e.g. `data.resultList[0].orderId`. */
  field?: string;
  /** False when the request surely never reached the venue (connect phase): the outcome is then known. */
  sent?: boolean;
  cause?: unknown;
}

export class ExchangeError extends Error {
  readonly endpoint: EndpointId;
  readonly httpStatus: number | undefined;
  readonly code: string | undefined;
  readonly venueMessage: string | undefined;
  readonly field: string | undefined;
  readonly retryable: boolean;
  /** True when the endpoint writes and the venue may have acted: resolve by query, never re-send blindly. */
  readonly outcomeUnknown: boolean;

  constructor(
    readonly category: ErrorCategory,
    message: string,
    details: ExchangeErrorDetails,
  ) {
    // Venue texts can echo a request (headers included): nothing secret survives into an error.
    super(scrubSecrets(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = CLASS_NAMES[category];
    this.endpoint = details.endpoint;
    this.httpStatus = details.httpStatus;
    this.code = details.code;
    this.venueMessage = details.venueMessage === undefined ? undefined : scrubSecrets(details.venueMessage);
    this.field = details.field;
    const traits = TRAITS[category];
    this.retryable = traits.retryable;
    // Reads change nothing, whatever their HTTP method (spot reads are POSTs): only a write's outcome can be unknown.
    this.outcomeUnknown = ENDPOINTS[details.endpoint].kind !== 'read' && traits.mayHaveActed && details.sent !== false;
  }

  /** One line for operators: endpoint, HTTP status, code and message. */
  summary(): string {
    const parts = [`${this.endpoint} ${ENDPOINTS[this.endpoint].path}`];
    if (this.httpStatus !== undefined) parts.push(`HTTP ${this.httpStatus}`);
    if (this.code !== undefined) parts.push(`code ${this.code}`);
    parts.push(this.message);
    return parts.join(' | ');
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      category: this.category,
      message: this.message,
      endpoint: this.endpoint,
      httpStatus: this.httpStatus,
      code: this.code,
      field: this.field,
      retryable: this.retryable,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}

const CLASS_NAMES: Record<ErrorCategory, string> = {
  auth: 'AuthenticationError',
  permission: 'PermissionDeniedError',
  'bad-request': 'BadRequestError',
  'invalid-order': 'InvalidOrderError',
  'not-found': 'OrderNotFoundError',
  'insufficient-funds': 'InsufficientFundsError',
  timestamp: 'TimestampError',
  'rate-limit': 'RateLimitError',
  network: 'NetworkError',
  timeout: 'RequestTimeoutError',
  unavailable: 'ExchangeUnavailableError',
  'bad-response': 'BadResponseError',
  unknown: 'UnknownExchangeError',
};

/** Venue error codes (futures v2 official table; spot v2 codes as reported) -> category. */
export const ERROR_CODES: Readonly<Record<string, ErrorCategory>> = {
  '40001': 'auth',
  '40002': 'auth',
  '40003': 'auth',
  '40005': 'auth',
  '40006': 'auth',
  '40009': 'auth',
  '40011': 'auth',
  '40012': 'auth',
  '40013': 'auth',
  '40018': 'auth',
  '40008': 'timestamp',
  '40014': 'permission',
  '40022': 'permission',
  '40753': 'permission',
  '50003': 'permission',
  '50004': 'permission',
  '40007': 'bad-request',
  '40017': 'bad-request',
  '40019': 'bad-request',
  '40020': 'bad-request',
  '40102': 'bad-request',
  '40305': 'bad-request',
  '40409': 'bad-request',
  '40704': 'bad-request',
  '40707': 'bad-request',
  '40724': 'bad-request',
  '40912': 'bad-request',
  '40913': 'bad-request',
  '50007': 'bad-request',
  '43002': 'invalid-order',
  '43005': 'invalid-order',
  '43006': 'invalid-order',
  '43007': 'invalid-order',
  '43009': 'invalid-order',
  '43010': 'invalid-order',
  '43011': 'invalid-order',
  '50005': 'not-found',
  '43001': 'not-found',
  '43004': 'not-found',
  FAILED_ORDER_NOT_FOUND: 'not-found',
  '429': 'rate-limit',
  // 40015 "System error" arrives with HTTP 400 but does not prove the request was rejected.
  '40015': 'unavailable',
  '40200': 'unavailable',
  '40725': 'unavailable',
};

const INSUFFICIENT_RE = /insufficient|not enough|balance not/i;

/** Classifies a venue answer that is not a success. */
export function classifyVenueError(endpoint: EndpointId, httpStatus: number, code: string | undefined, message: string | undefined): ExchangeError {
  const byCode = code !== undefined ? ERROR_CODES[code] : undefined;
  // A generic failure code whose message says why ("Failed to place order: insufficient balance"); a refusal of our
  // keys keeps its class ("Insufficient permissions for this operation" is 40022's).
  const keysRefused = byCode === 'auth' || byCode === 'permission';
  let category: ErrorCategory | undefined = !keysRefused && message !== undefined && INSUFFICIENT_RE.test(message) ? 'insufficient-funds' : byCode;
  if (category === undefined) {
    if (httpStatus === 429) category = 'rate-limit';
    else if (httpStatus === 401 || httpStatus === 521) category = 'auth';
    // The venue's own 403 carries its code (40022); a bare one is a proxy, CDN or firewall in front of it.
    else if (httpStatus === 403) category = 'unavailable';
    else if (httpStatus >= 500) category = 'unavailable';
    else category = 'unknown';
  }
  const text = message && message.length > 0 ? message : httpStatus === 521 ? 'IP not whitelisted' : `HTTP ${httpStatus}`;
  return new ExchangeError(category, text, { endpoint, httpStatus, code, venueMessage: message });
}

/**
 * Whether a venue answer refuses our keys (what the authentication halt counts): one of the venue's authentication
 * or permission codes, or its 521 (IP not whitelisted, which comes without a code). A refusal by anything in front
 * of the venue (a proxy's plain 403) is not: the venue never saw the keys.
 */
export function refusesKeys(err: ExchangeError): boolean {
  if (err.httpStatus === undefined) return false;
  if (err.code === undefined) return err.httpStatus === 521;
  const category = ERROR_CODES[err.code];
  return category === 'auth' || category === 'permission';
}

/** Classifies a per-item failure inside a batch answer (F6 error_code, F7 err_code, S4 errMsg). */
export function classifyItemError(endpoint: EndpointId, code: string | null | undefined, message: string | null | undefined): ExchangeError {
  const c = code && code.length > 0 ? code : message && ERROR_CODES[message] ? message : undefined;
  const e = classifyVenueError(endpoint, 200, c, message ?? undefined);
  if (e.category !== 'unknown') return e;
  // The venue reported this item as failed: a refusal, even when its code is new to us.
  return new ExchangeError('invalid-order', e.message, { endpoint, httpStatus: 200, code: c, venueMessage: message ?? undefined });
}
