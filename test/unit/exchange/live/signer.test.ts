// Signing golden vectors: expected signatures computed independently with `openssl dgst -sha256 -hmac K -binary | base64`.
import { describe, expect, it } from '@jest/globals';
import { buildQuery, encodeQueryComponent } from '../../../../src/exchange/live/signer.js';
import { prehash, sign } from '../../../../src/exchange/wire/signature.js';

describe('prehash', () => {
  it('has no "?" when the query is empty, and appends the body as sent', () => {
    expect(prehash('1', 'get', '/api/v2/account/assets', '', '')).toBe('1GET/api/v2/account/assets');
    expect(prehash('1', 'GET', '/p', 'a=1&b=2', '')).toBe('1GET/p?a=1&b=2');
    expect(prehash('1', 'post', '/p', '', '{"x":1}')).toBe('1POST/p{"x":1}');
  });
});

describe('golden vectors', () => {
  const vectors: Array<[string, string, string, string, string, string, string]> = [
    // secret, timestamp, method, path, query, body, expected
    [
      'secret-key-1',
      '1561022985382',
      'POST',
      '/capi/v2/order/placeOrder',
      '',
      '{"symbol":"cmt_btcusdt","size":"8","side":"buy","price":"1","orderType":"limit","clientOrderId":"ww#123456"}',
      'Bi94UfmUbrLk4kDvXrM6plLeh+t7VBotaphguxg0b/U=',
    ],
    ['secret-key-1', '1591089508404', 'GET', '/capi/v2/market/candles', 'symbol=cmt_btcusdt&limit=20', '', '0FJod0dKmq4m/Qde5bbIhZlMcJoXXR5Z7ipE8XEf4K4='],
    ['secret-key-1', '1591089508404', 'GET', '/api/v2/account/assets', '', '', '6mBOvDFyz42Ts2Y850iR79/W2GibQjJmlbOLYPSzJXY='],
    [
      'ünïcødé-sécret',
      '1700000000000',
      'POST',
      '/api/v2/trade/batch-orders',
      '',
      '{"symbol":"BTCUSDT_SPBL","note":"€ 日本"}',
      'jZmSu0wquPBs90hY7pooqRlucTuQ/BnmprLbAfio+sw=',
    ],
  ];
  it.each(vectors)('%#: %s %s %s', (secret, ts, method, path, query, body, expected) => {
    expect(sign(secret, ts, method, path, query, body)).toBe(expected);
  });

  it('a one-character change in any part changes the signature', () => {
    const base = sign('s', '1', 'GET', '/p', 'a=1', '');
    expect(sign('s', '2', 'GET', '/p', 'a=1', '')).not.toBe(base);
    expect(sign('s', '1', 'GET', '/p', 'a=2', '')).not.toBe(base);
    expect(sign('t', '1', 'GET', '/p', 'a=1', '')).not.toBe(base);
  });
});

describe('query encoding', () => {
  it('encodes what a URL parser would otherwise re-encode, keeps key order, skips undefined', () => {
    expect(encodeQueryComponent("a b/c'd(e)*!,")).toBe('a%20b%2Fc%27d%28e%29%2A%21%2C');
    expect(buildQuery({ symbol: 'cmt_btcusdt', skip: undefined, limit: 20 })).toBe('symbol=cmt_btcusdt&limit=20');
    const q = buildQuery({ s: "x y'z" });
    expect(new URL(`http://h/p?${q}`).search).toBe(`?${q}`);
  });
});
