// The dashboard script's pure part, as browser JavaScript: formatting (durations, times, amounts, counts), the chart
// series made from the control API's equity points (one line per surface, its drawdown below its running peak) and
// the event log's folding of repeats. An event folds into the log's newest entry when its kind, the strategy and
// symbol its data names, and its text are the same once the order ids its data names (clientOid, orderId) and every
// free-standing number are set aside: denials while halted, a cap hit on every tick or equity updates make one
// entry with a count, while another reason, strategy, symbol, side or state starts a new one. Only the newest entry
// folds: the log stays in time order.
// Kept apart from the part that touches the page so the unit tests run it as it is served (in a VM context).
// The text holds no backtick and no `${`: it lives in a template string.

/**
 * Browser JavaScript declaring `formatDuration`, `formatClock`, `formatAmount`, `countOf`, `equityBySurface`,
 * `addEquityPoint`, `equityPointsOf`, `drawdownOf`, `pushBounded`, `eventFoldKey`, `eventEntry` and `foldEvent`.
 */
export const CLIENT_HELPERS = String.raw`
/** A duration as a person reads it: 12s, 4m 05s, 2h 05m, 3d 04h. */
function formatDuration(ms) {
  if (typeof ms !== 'number' || !isFinite(ms) || ms < 0) return '-';
  const s = Math.floor(ms / 1000);
  const pad = (n) => String(n).padStart(2, '0');
  if (s < 60) return s + 's';
  const m = Math.floor(s / 60);
  if (m < 60) return m + 'm ' + pad(s % 60) + 's';
  const h = Math.floor(m / 60);
  if (h < 24) return h + 'h ' + pad(m % 60) + 'm';
  return Math.floor(h / 24) + 'd ' + pad(h % 24) + 'h';
}

/** A time of day in UTC, HH:MM:SS. */
function formatClock(atMs) {
  if (typeof atMs !== 'number' || !isFinite(atMs)) return '-';
  return new Date(atMs).toISOString().slice(11, 19);
}

/** A decimal string as sent (exact), '-' when unknown (null, undefined or empty). */
function formatAmount(value) {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

/** A count and its noun, plural unless it is one: 1 order, 3 orders, 0 positions. */
function countOf(n, noun) {
  return n + ' ' + noun + (n === 1 ? '' : 's');
}

/** Chart time: whole seconds (the chart library's UTC timestamps). */
function chartTime(atMs) {
  return Math.floor(atMs / 1000);
}

/**
 * The equity points of every surface ({surface, value, atMs}, oldest first) as one chart series per surface:
 * {time, value} with strictly increasing times, the latest point of a second kept. Values that are not numbers
 * (an unknown equity) are left out.
 */
function equityBySurface(points) {
  const out = {};
  for (const p of points) addEquityPoint(out, p);
  return out;
}

/**
 * Adds one equity point to the series by surface; returns {surface, point} for the chart's update, or null when the
 * point is unusable or older than the series' last (a chart accepts no step back in time).
 */
function addEquityPoint(bySurface, p) {
  if (!p || typeof p.surface !== 'string' || typeof p.atMs !== 'number') return null;
  const value = Number(p.value);
  if (p.value === '' || p.value === null || !isFinite(value)) return null;
  const series = bySurface[p.surface] || (bySurface[p.surface] = []);
  const point = { time: chartTime(p.atMs), value: value };
  const last = series[series.length - 1];
  if (last && point.time < last.time) return null;
  if (last && point.time === last.time) series[series.length - 1] = point;
  else series.push(point);
  return { surface: p.surface, point: point };
}

/** The equity points an equity event carries: {bySurface: {spot: '1000.5', ...}} at the event's time, or one {surface, value}. */
function equityPointsOf(e) {
  const data = e && e.data;
  if (!data || typeof data !== 'object') return [];
  if (data.bySurface && typeof data.bySurface === 'object') {
    return Object.keys(data.bySurface).map((surface) => ({ surface: surface, value: data.bySurface[surface], atMs: e.atMs }));
  }
  return typeof data.surface === 'string' ? [{ surface: data.surface, value: data.value, atMs: typeof data.atMs === 'number' ? data.atMs : e.atMs }] : [];
}

/** A series' drawdown: percent below its running peak (0 at a new high, negative below it). */
function drawdownOf(series) {
  let peak = -Infinity;
  return series.map((p) => {
    peak = Math.max(peak, p.value);
    return { time: p.time, value: peak > 0 ? -100 * (peak - p.value) / peak : 0 };
  });
}

/** Puts item first in list and drops the oldest beyond max; returns the items dropped. */
function pushBounded(list, item, max) {
  list.unshift(item);
  return list.length > max ? list.splice(max) : [];
}

/**
 * What an event is folded by: its kind, its data's strategy and symbol as they are, and its text with its data's
 * order ids and every number not part of a word (a price, a size, a time, a count, its sign; not the 2 of eth2) masked.
 */
function eventFoldKey(e) {
  const data = e.data && typeof e.data === 'object' ? e.data : {};
  let text = String(e.text);
  for (const id of [data.clientOid, data.orderId]) if (typeof id === 'string' && id !== '') text = text.split(id).join('\u0001');
  const wordy = (c) => /[A-Za-z_]/.test(c);
  text = text.replace(/-?\d+(?:\.\d+)?/g, (m, at, all) => (wordy(all.charAt(at - 1)) || wordy(all.charAt(at + m.length)) ? m : '\u0002'));
  return [String(e.kind), String(data.strategyId ?? ''), String(data.symbol ?? ''), text].join('\u0000');
}

/** A new entry of the event log: {key, count, firstAtMs, atMs}. */
function eventEntry(e) {
  const atMs = typeof e.atMs === 'number' ? e.atMs : null;
  return { key: eventFoldKey(e), count: 1, firstAtMs: atMs, atMs: atMs };
}

/** The newest entry with e folded in (one more, its times widened), or null when e makes an entry of its own. */
function foldEvent(newest, e) {
  if (!newest || newest.key !== eventFoldKey(e)) return null;
  const atMs = typeof e.atMs === 'number' ? e.atMs : null;
  const pick = (a, b, f) => (a === null ? b : b === null ? a : f(a, b));
  return { key: newest.key, count: newest.count + 1, firstAtMs: pick(newest.firstAtMs, atMs, Math.min), atMs: pick(newest.atMs, atMs, Math.max) };
}
`;
