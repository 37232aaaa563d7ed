// What is refused before sending, alike for the live client, the in-process simulator and the meter: limits outside
// the documented ones, windows ending before they start, and candle reads no endpoint serves.
import { describe, expect, it } from '@jest/globals';
import { ExchangeError } from '../../../src/exchange/errors.js';
import { candleEndpoint, checkRequest } from '../../../src/exchange/request-checks.js';

function refusal(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ExchangeError);
    return err as ExchangeError;
  }
  throw new Error('expected a refusal');
}

describe('checkRequest', () => {
  it('depth gears: 15 or 200 only, as a number or as digits (sextant api passes text)', () => {
    expect(() => checkRequest('F13', { symbol: 'cmt_btcusdt', limit: 200 })).not.toThrow();
    expect(() => checkRequest('S13', { symbol: 'BTCUSDT_SPBL', limit: '15' as unknown as number })).not.toThrow();
    expect(refusal(() => checkRequest('S13', { symbol: 'BTCUSDT_SPBL', limit: 20 }))).toMatchObject({
      category: 'bad-request',
      endpoint: 'S13',
      outcomeUnknown: false,
      message: 'rejected before sending: limit must be one of 15, 200, got 20',
    });
  });

  it("page sizes within the endpoint's maximum; a limit without one still a positive integer", () => {
    expect(() => checkRequest('F10', { symbol: 'cmt_btcusdt', granularity: '1m', limit: 1000 })).not.toThrow();
    expect(refusal(() => checkRequest('F10', { symbol: 'cmt_btcusdt', granularity: '1m', limit: 1001 })).message).toBe(
      'rejected before sending: limit must be an integer from 1 to 1000, got 1001',
    );
    expect(refusal(() => checkRequest('F22', { symbol: 'cmt_btcusdt', pageSize: 0 })).endpoint).toBe('F22');
    expect(refusal(() => checkRequest('S10', { symbol: 'BTCUSDT_SPBL', period: '1m', limit: 2.5 })).message).toBe(
      'rejected before sending: limit must be a positive integer, got 2.5',
    );
  });

  it('time windows: millisecond times, the start not after the end', () => {
    expect(() => checkRequest('F11', { symbol: 'cmt_btcusdt', granularity: '1m', startTime: 5, endTime: 5 })).not.toThrow();
    expect(refusal(() => checkRequest('F11', { symbol: 'cmt_btcusdt', granularity: '1m', startTime: 6, endTime: 5 })).message).toBe(
      'rejected before sending: startTime 6 is after endTime 5',
    );
    expect(refusal(() => checkRequest('F21', { startTime: -1 })).message).toBe('rejected before sending: startTime must be a millisecond time, got -1');
    expect(refusal(() => checkRequest('F22', { symbol: 'cmt_btcusdt', endTime: Number.NaN })).endpoint).toBe('F22');
  });
});

describe('candleEndpoint', () => {
  it('spot S10 has every timeframe; futures F10 / F11 lack 2h, 6h and 8h', () => {
    for (const tf of ['1m', '2h', '6h', '8h', '1w'] as const) expect(candleEndpoint('spot', 'BTCUSDT_SPBL', tf, false)).toBe('S10');
    expect(candleEndpoint('futures', 'cmt_btcusdt', '4h', false, 'mark')).toBe('F10');
    expect(candleEndpoint('futures', 'cmt_btcusdt', '12h', true, 'index')).toBe('F11');
    for (const tf of ['2h', '6h', '8h'] as const) {
      expect(refusal(() => candleEndpoint('futures', 'cmt_btcusdt', tf, false))).toMatchObject({
        category: 'bad-request',
        endpoint: 'F10',
        message: expect.stringContaining(`F10 has no ${tf} candles`),
      });
      expect(refusal(() => candleEndpoint('futures', 'cmt_btcusdt', tf, true)).endpoint).toBe('F11');
    }
  });

  it('spot has no history candles in v2, nor mark or index candles', () => {
    expect(refusal(() => candleEndpoint('spot', 'BTCUSDT_SPBL', '1h', true)).message).toBe(
      'rejected before sending: spot has no history candles in v2 (BTCUSDT_SPBL is a spot pair; S10 serves its latest candles only)',
    );
    expect(refusal(() => candleEndpoint('spot', 'BTCUSDT_SPBL', '1h', false, 'mark'))).toMatchObject({
      endpoint: 'S10',
      message: 'rejected before sending: S10 has no mark price candles (futures only)',
    });
  });
});
