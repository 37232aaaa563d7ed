// Text written straight into a byte buffer, for the report's files: each function writes at `at` and returns the
// offset after what it wrote (the caller makes room first: textBytes() bounds a string's bytes). Numbers are safe
// integers, written as String() writes them.

/** The most bytes `s` takes in UTF-8. */
export const textBytes = (s: string): number => s.length * 3;

/** `s` (UTF-8; a plain ASCII string byte by byte). */
export function putText(buf: Buffer, at: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return at + buf.write(s, at, 'utf8');
    buf[at + i] = c;
  }
  return at + n;
}

/** A safe integer. */
export function putInt(buf: Buffer, at: number, n: number): number {
  if (n < 0) {
    buf[at++] = 45;
    n = -n;
  }
  let len = 1;
  for (let p = 10; p <= n; p *= 10) len++;
  return putDigits(buf, at, n, len);
}

/** A non-negative safe integer as exactly `len` digits (leading zeros; `len` at least its own digits). */
export function putDigits(buf: Buffer, at: number, n: number, len: number): number {
  const end = at + len;
  let i = end - 1;
  if (n > INT_MAX) {
    // The last nine digits, then what is before them (in integers: a double's remainder is slow).
    const low = n % 1e9;
    putDigits(buf, at, (n - low) / 1e9, len - 9);
    n = low;
    len = 9;
  }
  let x = n | 0;
  for (; i >= end - len; i--) {
    const q = (x / 10) | 0;
    buf[i] = 48 + x - q * 10;
    x = q;
  }
  return end;
}

const INT_MAX = 0x7fffffff;

/** An ASCII byte. */
export function putByte(buf: Buffer, at: number, c: number): number {
  buf[at] = c;
  return at + 1;
}
