// A value of unknown type as text for a message or a parameter: strings as they are, numbers, booleans and big
// integers as their digits, an object of a class with its own toString (a long id kept as digits, a Decimal) as that,
// anything else (plain objects, arrays) as JSON: never "[object Object]".
export function shown(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v !== 'object' || v === null) return String(v as string);
  if (!Array.isArray(v) && v.toString !== Object.prototype.toString) return (v as { toString(): string }).toString();
  try {
    return JSON.stringify(v) ?? 'undefined';
  } catch {
    return Object.prototype.toString.call(v);
  }
}
