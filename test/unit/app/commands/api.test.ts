// The parameters of `sextant api`: --query pairs for a GET, a --body JSON object for a POST, nothing else.
import { describe, expect, it } from '@jest/globals';
import { apiParams } from '../../../../src/app/commands/api.js';

describe('apiParams', () => {
  it('a GET takes --query pairs in order; a value may hold "="', () => {
    expect(apiParams('F5', ['symbol=cmt_btcusdt', 'limit=50', 'x=a=b'], undefined)).toEqual({ symbol: 'cmt_btcusdt', limit: '50', x: 'a=b' });
  });

  it('a GET refuses a body and a pair without a key', () => {
    expect(() => apiParams('F2', [], '{}')).toThrow('F2 is a GET endpoint: pass parameters with --query k=v');
    expect(() => apiParams('F5', ['=1'], undefined)).toThrow('--query expects k=v, got "=1"');
  });

  it('a POST takes a JSON object, big integers losslessly; refuses --query, bad JSON and non-objects', () => {
    const params = apiParams('S2', [], '{"symbol":"WXTUSDT_SPBL","orderId":602929507946463674}');
    expect(String(params.orderId)).toBe('602929507946463674');
    expect(apiParams('S2', [], undefined)).toEqual({});
    expect(() => apiParams('S2', ['a=1'], undefined)).toThrow('S2 is a POST endpoint: pass parameters with --body JSON');
    expect(() => apiParams('S2', [], '{oops')).toThrow(/^--body is not valid JSON: /);
    expect(() => apiParams('S2', [], '[1]')).toThrow('--body must be a JSON object');
  });
});
