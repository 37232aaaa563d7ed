// Zod building blocks for wire fields: decimal strings ("" = unknown), numeric ids kept exact, timestamps.
import { z } from 'zod';
import { JsonBigInt } from './json.js';

const DECIMAL_RE = /^-?\d+(?:\.\d*)?$/;
const DIGITS_RE = /^-?\d+$/;

/** A decimal carried as a string. "" is allowed and means unknown; exponent notation, NaN, spaces are not. */
export const decStr = z.string().refine((s) => s === '' || DECIMAL_RE.test(s), {
  error: (iss) => `expected a decimal string, got ${JSON.stringify(iss.input)}`,
});

/**
 * A `long` on the wire: a JSON number (kept exact through JsonBigInt when beyond 2^53) or, as many endpoints
 * send it, a string of digits.
 */
export const long = z.union([
  z
    .number()
    .int()
    .refine((n) => Number.isSafeInteger(n), { error: 'integer beyond 2^53 lost precision' }),
  z.instanceof(JsonBigInt),
  z.string().regex(DIGITS_RE, { error: (iss) => `expected an integer, got ${JSON.stringify(iss.input)}` }),
]);

/** An integer that is a plain JSON number (coinId, contracts, leverage bounds). */
export const int = z.number().int();

/** Millisecond timestamps: JSON numbers or numeric strings, depending on the endpoint. */
export const timeMs = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^\d+$/, { error: (iss) => `expected a millisecond timestamp, got ${JSON.stringify(iss.input)}` }),
]);

/** A string that may be null (client_oid on several futures answers). */
export const strOrNull = z.string().nullable();

export type Long = z.infer<typeof long>;

/** The exact digits of a wire long. */
export function longToString(v: Long): string {
  return typeof v === 'number' ? String(v) : v instanceof JsonBigInt ? v.digits : v;
}
