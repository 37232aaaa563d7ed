// Why the venue refused orders, in the words a trader looks for (post-only, insufficient...), and counts by reason.

/** Refusal texts (the simulator's, as the venue words them) -> reason; the first match wins. */
const REASONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/too many requests/i, 'rate-limited'],
  [/post.?only/i, 'post-only'],
  [/insufficient|not enough|balance not/i, 'insufficient'],
  [/close size exceeds|exceeds the position/i, 'close-exceeds-position'],
  [/exceeds the limit|price: outside/i, 'price-limit'],
  [/minimum|maximum (order|position)/i, 'size-limit'],
  [/duplicate client id/i, 'duplicate'],
];

/** The reason of a refusal from its code and message; an unrecognised one by its code. */
export function rejectionReason(code: string | undefined, message: string): string {
  if (code === '429') return 'rate-limited';
  for (const [re, reason] of REASONS) if (re.test(message)) return reason;
  return code ? `code ${code}` : 'other';
}

/** Counts by reason, most frequent first (ties by name): a stable order for reports. */
export function countByReason(reasons: Iterable<string>): Record<string, number> {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return sortedCounts(counts);
}

/** Counts by reason in countByReason's order. */
export function sortedCounts(counts: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)));
}

/** `3 (post-only 2, insufficient 1)`; `0` when there are none. */
export function describeCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  const total = entries.reduce((a, [, n]) => a + n, 0);
  return entries.length === 0 ? '0' : `${total} (${entries.map(([r, n]) => `${r} ${n}`).join(', ')})`;
}
