// Lossless JSON for the wire: integer literals too long for a double (spot orderId > 2^53) are kept digit for
// digit as JsonBigInt, and written back as raw JSON numbers.

/** A JSON number literal that a double cannot hold exactly, kept as its digits. */
export class JsonBigInt {
  constructor(readonly digits: string) {}
  toString(): string {
    return this.digits;
  }
  toJSON(): string {
    return this.digits;
  }
}

// A double holds every integer of up to 15 digits exactly; 16 and more may not round-trip.
const MAX_SAFE_DIGITS = 15;
const MARK = '\u0000bigint:';
const LONG_DIGITS = /\d{16}/;
const NUMBER_RE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses JSON text; throws SyntaxError as JSON.parse does. */
export function parseJson(text: string): unknown {
  // Fast path: no run of 16 digits anywhere, so no number literal can lose precision.
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  const marked = markLongIntegers(text);
  if (marked === text) return JSON.parse(text);
  return JSON.parse(marked, (_key, value: unknown) => (typeof value === 'string' && value.startsWith(MARK) ? new JsonBigInt(value.slice(MARK.length)) : value));
}

/** Rewrites long integer literals outside strings into marked strings. Leaves string contents untouched. */
function markLongIntegers(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // skip the string literal, honouring backslash escapes
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER_RE.lastIndex = i;
      const m = NUMBER_RE.exec(text);
      if (!m) {
        i++;
        continue;
      }
      const lit = m[0];
      const isInteger = !/[.eE]/.test(lit);
      const digits = lit.startsWith('-') ? lit.length - 1 : lit.length;
      if (isInteger && digits > MAX_SAFE_DIGITS) {
        // JSON text cannot hold a raw NUL: write its escape, which parses back to MARK.
        out += `${text.slice(last, i)}"\\u0000bigint:${lit}"`;
        last = i + lit.length;
      }
      i += lit.length;
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** JSON text in which JsonBigInt values appear as raw number literals again. */
export function stringifyJson(value: unknown, space?: number): string {
  let found = false;
  const text = JSON.stringify(
    value,
    function (this: unknown, key: string, v: unknown) {
      const holder = this as Record<string, unknown>;
      const original = holder[key];
      if (original instanceof JsonBigInt) {
        found = true;
        return `${MARK}${original.digits}`;
      }
      if (typeof v === 'bigint') {
        found = true;
        return `${MARK}${v.toString()}`;
      }
      return v;
    },
    space,
  );
  if (!found) return text;
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
