// The dashboard script's pure part, as browser JavaScript: formatting (durations, times, amounts) and the chart
// series made from the control API's equity points (one line per surface, its drawdown below its running peak).
// Kept apart from the part that touches the page so the unit tests run it as it is served (in a VM context).
// The text holds no backtick and no `${`: it lives in a template string.

/**
 * Browser JavaScript declaring `formatDuration`, `formatClock`, `formatAmount`, `equityBySurface`, `addEquityPoint`,
 * `equityPointsOf`, `drawdownOf` and `pushBounded`.
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
`;
