// Numbers written in YAML where the schema expects text: read exactly as written ("0.002"), never through a float.
import type { z } from 'zod';

/** The source text of a number written at `path` (relative to what is being parsed), or undefined for anything else. */
export type NumberTextAt = (path: ReadonlyArray<PropertyKey>) => string | undefined;

/** How an unquoted number must be written to be read as text: plain digits, an optional sign and fraction. */
const PLAIN_DIGITS = /^-?\d+(\.\d+)?$/;

export type NumbersAsWritten<T> =
  | { success: true; data: T; /** The input with numbers replaced by their text where text was expected. */ input: unknown }
  | { success: false; issues: z.core.$ZodIssue[]; input: unknown };

/** An issue that says text was expected: a string, or a union with a string among its options. */
function expectsText(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return issue.expected === 'string';
  if (issue.code === 'invalid_union') return issue.errors.some((option) => option.some((i) => i.path.length === 0 && expectsText(i)));
  return false;
}

/** Puts `value` at `path` inside `root` (a copy the caller owns); returns the root (the value itself at the root). */
function setAt(root: unknown, path: ReadonlyArray<PropertyKey>, value: string): unknown {
  if (path.length === 0) return value;
  let node = root as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<PropertyKey, unknown>;
  node[path[path.length - 1]!] = value;
  return root;
}

/** A plain-digit way to write the number meant, for the message (the float's shortest form when it is plain). */
function example(text: string): string {
  const n = Number(text.replace(/_/g, ''));
  const shortest = String(n);
  return Number.isFinite(n) && PLAIN_DIGITS.test(shortest) ? shortest : '0.001';
}

/**
 * Parses `input` with `schema`. Where the schema refuses a number because it expects text (a decimal string, say)
 * and the document has a number written there as plain digits (`size: 0.002`), that number's source text is
 * taken instead ("0.002": exact, whatever a binary float would make of it) and the input parsed again; the schema
 * still decides whether the text is acceptable. A number written otherwise (1e-3, .5, 0x10, +1) is refused with
 * a message that says to quote it — except where the schema itself takes a whole number (the config's decimals
 * accept a safe integer such as 16, however it was written, since it is exact).
 */
export function safeParseNumbersAsWritten<T>(schema: z.ZodType<T>, input: unknown, textAt: NumberTextAt): NumbersAsWritten<T> {
  let value = input;
  let copied = false;
  // Each round replaces numbers at the paths the schema reached; a replaced path never asks again (it holds text).
  for (let round = 0; round < 8; round++) {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { success: true, data: parsed.data, input: value };
    const fixes: Array<[ReadonlyArray<PropertyKey>, string]> = [];
    const issues = parsed.error.issues.map((issue) => {
      const text = expectsText(issue) ? textAt(issue.path as PropertyKey[]) : undefined;
      if (text === undefined) return issue;
      if (PLAIN_DIGITS.test(text)) {
        fixes.push([issue.path as PropertyKey[], text]);
        return issue;
      }
      return {
        ...issue,
        message: `a number where text is expected: write it quoted, as plain digits, e.g. "${example(text)}" (an unquoted number is read as written only when it is plain digits like 0.002; ${text} is not)`,
      };
    });
    if (fixes.length === 0) return { success: false, issues, input: value };
    if (!copied) {
      value = structuredClone(value);
      copied = true;
    }
    for (const [path, text] of fixes) value = setAt(value, path, text);
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { success: true, data: parsed.data, input: value } : { success: false, issues: parsed.error.issues, input: value };
}
