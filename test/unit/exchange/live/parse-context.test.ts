// The field readers every venue parser shares: required values fail naming endpoint and field; optional oddities
// are reported as anomalies and taken as unknown.
import { describe, expect, it } from '@jest/globals';
import { ExchangeError } from '../../../../src/exchange/errors.js';
import { ParseContext, fieldsAt } from '../../../../src/exchange/live/parse-context.js';

function failure(fn: () => unknown): ExchangeError {
  try {
    fn();
  } catch (err) {
    return err as ExchangeError;
  }
  throw new Error('expected a failure');
}

describe('ParseContext', () => {
  it('reads a required decimal, failing with the endpoint and field on nothing, "" or junk', () => {
    const ctx = new ParseContext('F2');
    expect(ctx.dec('[0].last', '90755.30').toString()).toBe('90755.3');
    const err = failure(() => ctx.dec('[0].last', ''));
    expect(err).toBeInstanceOf(ExchangeError);
    expect({ category: err.category, endpoint: err.endpoint, field: err.field, message: err.message }).toEqual({
      category: 'bad-response',
      endpoint: 'F2',
      field: '[0].last',
      message: '[0].last: a value is required, got ""',
    });
    expect(failure(() => ctx.dec('x', undefined)).message).toBe('x: a value is required, got nothing');
    expect(failure(() => ctx.dec('x', '1e5')).message).toBe('x: not a decimal: "1e5"');
  });

  it('takes "" or absent as unknown; a positive value must be above zero', () => {
    const ctx = new ParseContext('S7');
    expect([ctx.decOpt(''), ctx.decOpt(undefined), ctx.decOpt(null)]).toEqual([null, null, null]);
    expect(ctx.positive('data[0].tickSize', '0.01').toString()).toBe('0.01');
    expect(failure(() => ctx.positive('data[0].tickSize', '0')).message).toBe('data[0].tickSize: must be above zero, got "0"');
  });

  it('reports a non-positive price and takes it as unknown', () => {
    const ctx = new ParseContext('F2');
    expect(ctx.priceOpt('[1].best_bid', '0')).toBeNull();
    expect(ctx.priceOpt('[1].best_ask', '12.5')!.toString()).toBe('12.5');
    expect(ctx.anomalies).toEqual([{ endpoint: 'F2', field: '[1].best_bid', value: '0', note: 'non-positive price taken as unknown' }]);
  });

  it('reads millisecond times from numbers or digit strings; anything else is unknown', () => {
    const ctx = new ParseContext('S2');
    expect([ctx.time(1764482511864), ctx.time('1764482511864'), ctx.time(''), ctx.time(undefined), ctx.time('soon'), ctx.time('1.5')]).toEqual([
      1764482511864,
      1764482511864,
      null,
      null,
      null,
      null,
    ]);
  });

  it('names fields under a record path, or bare for a bare object', () => {
    expect(fieldsAt('data[2]')('price')).toBe('data[2].price');
    expect(fieldsAt('')('price')).toBe('price');
  });
});
