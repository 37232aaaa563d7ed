import { describe, expect, it } from '@jest/globals';
import { ExchangeError, classifyItemError, classifyVenueError, refusesKeys } from '../../../src/exchange/errors.js';

describe('error taxonomy', () => {
  it.each([
    ['40009', 400, 'auth', false],
    ['40012', 400, 'auth', false],
    ['40022', 403, 'permission', false],
    ['40020', 400, 'bad-request', false],
    ['43006', 400, 'invalid-order', false],
    ['50005', 400, 'not-found', false],
    ['43001', 400, 'not-found', false],
    ['40008', 400, 'timestamp', true],
    ['429', 429, 'rate-limit', true],
    ['40015', 400, 'unavailable', true],
  ] as const)('code %s (HTTP %d) is %s, retryable %s', (code, status, category, retryable) => {
    const e = classifyVenueError('F5', status, code, 'm');
    expect(e.category).toBe(category);
    expect(e.retryable).toBe(retryable);
    expect(e.outcomeUnknown).toBe(false); // F5 is a read
  });

  it('falls back on the HTTP status and on the message', () => {
    expect(classifyVenueError('F2', 503, undefined, undefined).category).toBe('unavailable');
    expect(classifyVenueError('F2', 521, undefined, undefined).message).toBe('IP not whitelisted');
    expect(classifyVenueError('F6', 400, '40015', 'FAILED_PRECONDITION: margin available amount not enough').category).toBe('insufficient-funds');
    expect(classifyVenueError('F6', 400, '40015', 'System error').category).toBe('unavailable');
    expect(classifyVenueError('F6', 400, '49999', 'Insufficient balance').category).toBe('insufficient-funds');
    // The venue's own 40022 keeps its class, whatever its message says.
    expect(classifyVenueError('F3', 403, '40022', 'Insufficient permissions for this operation').category).toBe('permission');
  });

  it("a 403 without the venue's code is a proxy's or a firewall's: unavailable, retried, not a refusal of our keys", () => {
    for (const message of [undefined, 'HTTP 403: <html><body>Forbidden</body></html>', 'Forbidden']) {
      const e = classifyVenueError('F3', 403, undefined, message);
      expect(e).toMatchObject({ category: 'unavailable', retryable: true, httpStatus: 403 });
      expect(refusesKeys(e)).toBe(false);
    }
    expect(classifyVenueError('F6', 403, undefined, undefined).outcomeUnknown).toBe(true);
    expect(refusesKeys(classifyVenueError('F3', 403, '40022', 'Insufficient permissions for this operation'))).toBe(true);
    expect(refusesKeys(classifyVenueError('F3', 400, '40012', 'Incorrect API key/Passphrase'))).toBe(true);
    expect(refusesKeys(classifyVenueError('F3', 521, undefined, undefined))).toBe(true);
    expect(refusesKeys(classifyVenueError('F3', 400, '40008', 'Request timestamp expired'))).toBe(false);
    expect(refusesKeys(new ExchangeError('auth', 'signed requests stopped', { endpoint: 'F3', sent: false }))).toBe(false);
  });

  it('a write whose outcome may have happened is marked unknown; a refused one is not', () => {
    expect(classifyVenueError('F6', 500, undefined, undefined).outcomeUnknown).toBe(true);
    expect(classifyVenueError('F6', 400, '49999', 'new').outcomeUnknown).toBe(true);
    expect(classifyVenueError('F6', 400, '43006', 'too small').outcomeUnknown).toBe(false);
    expect(classifyVenueError('F6', 429, '429', 'Too many requests').outcomeUnknown).toBe(false);
    expect(new ExchangeError('timeout', 't', { endpoint: 'S6', sent: false }).outcomeUnknown).toBe(false);
    expect(new ExchangeError('timeout', 't', { endpoint: 'S6' }).outcomeUnknown).toBe(true);
  });

  it('a spot read is a POST but changes nothing: its timeout is not an unknown outcome', () => {
    for (const id of ['S1', 'S2', 'S3', 'S15'] as const) expect(new ExchangeError('timeout', 't', { endpoint: id }).outcomeUnknown).toBe(false);
    expect(new ExchangeError('timeout', 't', { endpoint: 'S4' }).outcomeUnknown).toBe(true);
  });

  it('batch items: FAILED_ORDER_NOT_FOUND is not-found; an unknown item code is a refusal of that item', () => {
    expect(classifyItemError('S4', undefined, 'FAILED_ORDER_NOT_FOUND').category).toBe('not-found');
    const e = classifyItemError('F6', '12345', 'whatever');
    expect(e.category).toBe('invalid-order');
    expect(e.outcomeUnknown).toBe(false);
  });
});
