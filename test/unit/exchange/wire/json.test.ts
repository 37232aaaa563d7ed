import { describe, expect, it } from '@jest/globals';
import { JsonBigInt, parseJson, stringifyJson } from '../../../../src/exchange/wire/json.js';

describe('lossless JSON', () => {
  it('keeps integers beyond 2^53 digit for digit and round-trips them as raw numbers', () => {
    const text = '{"orderId":602876318261969338,"big":-8389765489680951453,"ok":1743736915184,"s":"602876318261969338"}';
    const v = parseJson(text) as Record<string, unknown>;
    expect(v.orderId).toBeInstanceOf(JsonBigInt);
    expect(String(v.orderId)).toBe('602876318261969338');
    expect(String(v.big)).toBe('-8389765489680951453');
    expect(v.ok).toBe(1743736915184);
    expect(v.s).toBe('602876318261969338');
    expect(stringifyJson(v)).toBe(text);
  });

  it('never touches digits inside strings, even after escaped quotes', () => {
    const text = '{"a":"x\\"1234567890123456789","b":[12345678901234567890,"\\\\",9007199254740993]}';
    const v = parseJson(text) as { a: string; b: unknown[] };
    expect(v.a).toBe('x"1234567890123456789');
    expect(String(v.b[0])).toBe('12345678901234567890');
    expect(v.b[1]).toBe('\\');
    expect(String(v.b[2])).toBe('9007199254740993');
  });

  it('leaves decimals and exponents to JSON.parse, and fails like JSON.parse on bad text', () => {
    expect(parseJson('[1.5, 1e3, 0.12345678901234567890]')).toEqual([1.5, 1000, 0.12345678901234568]);
    expect(() => parseJson('{"a":12345678901234567890')).toThrow(SyntaxError);
    expect(() => parseJson('<html>')).toThrow(SyntaxError);
  });

  it('writes bigint values as raw numbers', () => {
    expect(stringifyJson({ id: 602876318261969338n, n: 1 })).toBe('{"id":602876318261969338,"n":1}');
  });
});
