// The dashboard script's views, as browser JavaScript: the header's status, the strategy cards, the tables
// (open orders, fills, balances, positions), the rate-budget gauges and poll ages, and one entry of the event log,
// each built from the control API's JSON with createElement and textContent (never parsed as HTML).
// The text holds no backtick and no `${`: it lives in a template string.

/** Browser JavaScript declaring `h` and the `render*` functions; uses the helpers of client-helpers.ts. */
export const CLIENT_VIEWS = String.raw`
/** An element with attributes (class, data-*, title...) and children (strings become text nodes). */
function h(tag, attrs, children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else el.setAttribute(k, String(v));
  }
  for (const c of children || []) {
    if (c === null || c === undefined) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
}

const shown = {};
/** True when value differs from what was last shown under key (then remembered): unchanged parts are not rebuilt. */
function changed(key, value) {
  const text = JSON.stringify(value);
  if (shown[key] === text) return false;
  shown[key] = text;
  return true;
}

/** Sets an element's text by id. */
function setText(id, text) {
  document.getElementById(id).textContent = text;
}

/** A table body's rows replaced: one row per item, cells from cellsOf (strings or {text, class}). */
function fillTable(id, items, cellsOf, empty) {
  const body = document.querySelector('#' + id + ' tbody');
  const cols = document.querySelectorAll('#' + id + ' thead th').length || 1;
  const rows = items.map((item) => h('tr', {}, cellsOf(item).map((c) => (c && typeof c === 'object' ? h('td', { class: c.class || null }, [c.text]) : h('td', {}, [c])))));
  if (rows.length === 0) rows.push(h('tr', { class: 'empty' }, [h('td', { colspan: cols, class: 'muted' }, [empty])]));
  body.replaceChildren(...rows);
}

const num = (text) => ({ text: formatAmount(text), class: 'num' });
const SIDE_CLASS = Object.assign(Object.create(null), { buy: 'side-buy', long: 'side-buy', sell: 'side-sell', short: 'side-sell' });
const side = (text) => ({ text: formatAmount(text), class: SIDE_CLASS[String(text).toLowerCase()] || null });

/** Largest available seen per pool: the gauges' full scale (the limiter does not say its capacity). */
const poolScale = {};

function renderStatus(s) {
  setText('mode', s.mode);
  setText('venue', s.venue);
  document.getElementById('venue').title = s.venue;
  setText('uptime', formatDuration(s.nowMs - s.startedAtMs));
  const state = document.getElementById('trading-state');
  state.dataset.state = s.tradingState;
  state.textContent = s.tradingState;
  setText('latches', s.latches.map((l) => l.name + ': ' + l.reason + ' (' + formatClock(l.atMs) + ')').join('; '));
  setText('fenced', s.fenced ? 'new orders wait: ' + s.fenced : '');
  const gauges = s.budget.map((b) => {
    const figures = (b.available === null ? 'unlimited' : String(b.available)) + ' / ' + b.queued;
    let fill = null;
    if (b.available !== null) {
      poolScale[b.pool] = Math.max(poolScale[b.pool] || 0, b.available);
      const ratio = poolScale[b.pool] > 0 ? b.available / poolScale[b.pool] : 0;
      fill = h('div', { class: 'fill' + (ratio <= 0 ? ' empty' : ratio < 0.25 ? ' low' : '') });
      fill.style.width = Math.round(ratio * 100) + '%';
    }
    return h('div', { class: 'gauge', 'data-pool': b.pool, title: b.queued + ' requests waiting' }, [
      h('span', {}, [b.pool]), h('div', { class: 'bar' }, [fill]), h('span', { class: 'figures' }, [figures]),
    ]);
  });
  document.getElementById('budget').replaceChildren(...gauges);
  fillTable('polls', s.polls, (p) => [p.poll, { text: p.ageMs === null ? 'never yet' : formatDuration(p.ageMs), class: 'num' }], 'no polls');
  const rec = s.reconciliation;
  setText('reconciliation', 'reconciled ' + (rec.lastAtMs === null ? 'not yet' : formatDuration(s.nowMs - rec.lastAtMs) + ' ago') + (rec.unresolved ? ', ' + rec.unresolved + ' unresolved' : ''));
}

function strategyCard(s) {
  const facts = [
    ['symbols', s.symbols.join(', ')],
    ['PnL', formatAmount(s.pnl.realized) + ' (fees ' + formatAmount(s.pnl.fees) + ', ' + s.pnl.fills + ' fills)'],
    ['open orders', String(s.openOrders)],
    ['errors', String(s.errors)],
  ];
  for (const p of s.positions) {
    facts.push(['position', p.symbol + ' ' + p.side + ' ' + formatAmount(p.size) + ' @ ' + formatAmount(p.entryPrice) + ' uPnL ' + formatAmount(p.unrealizedPnl)]);
  }
  const dl = h('dl', {}, facts.flatMap(([k, v]) => [h('dt', {}, [k]), h('dd', { 'data-fact': k }, [v])]));
  const action = s.state === 'running' ? 'pause' : 'resume';
  return h('article', { class: 'card', 'data-strategy': s.id, 'data-state': s.state }, [
    h('header', {}, [h('span', { class: 'id' }, [s.id]), h('span', { class: 'name' }, [s.name]), h('span', { class: 'badge', 'data-state': s.state }, [s.state])]),
    dl,
    s.lastError ? h('div', { class: 'error' }, ['last error: ' + s.lastError]) : null,
    h('div', { class: 'actions' }, [
      h('button', { type: 'button', 'data-action': action, 'data-strategy': s.id }, [action === 'pause' ? 'Pause' : 'Resume']),
    ]),
  ]);
}

function renderStrategies(list) {
  // Rebuilt only when something changed: a button is not replaced under the operator's pointer.
  if (!changed('strategies', list)) return;
  const host = document.getElementById('strategies');
  if (list.length === 0) host.replaceChildren(h('p', { class: 'muted' }, ['no strategies']));
  else host.replaceChildren(...list.map(strategyCard));
}

function renderOrders(orders, nowMs) {
  if (!changed('orders', [orders, Math.floor(nowMs / 1000)])) return;
  setText('orders-count', String(orders.length));
  fillTable('orders', orders, (o) => [
    o.strategyId, o.symbol, side(o.side), o.kind, num(o.price), num(o.size), num(o.filledSize), o.state,
    { text: formatDuration(nowMs - o.createdAtMs), class: 'num' },
  ], 'no open orders');
  const rows = document.querySelectorAll('#orders tbody tr');
  orders.forEach((o, i) => {
    rows[i].dataset.clientOid = o.clientOid;
    rows[i].title = o.clientOid + (o.orderId ? ' / ' + o.orderId : '');
  });
}

/** Fills come oldest first: shown newest first. */
function renderFills(fills) {
  if (!changed('fills', fills)) return;
  fillTable('fills', fills.slice().reverse(), (f) => [formatClock(f.atMs), formatAmount(f.strategyId), formatAmount(f.symbol), num(f.price), num(f.size), num(f.fee)], 'no fills yet');
}

function renderBalances(balances) {
  if (!changed('balances', balances)) return;
  fillTable('balances', balances, (b) => [b.surface, b.asset, num(b.total), num(b.available)], 'no balances yet');
}

function renderPositions(positions) {
  if (!changed('positions', positions)) return;
  fillTable('positions', positions, (p) => [
    p.symbol, side(p.side), num(p.size), num(p.entryPrice), num(p.markPrice), num(p.unrealizedPnl), num(p.liquidationPrice),
  ], 'no open positions');
}

/** One entry of the event log: the latest event's text at the entry's latest time, and how many it folds (×12). */
function renderEvent(e, entry) {
  const count = entry ? entry.count : 1;
  const atMs = entry ? entry.atMs : e.atMs;
  const title = count > 1 ? count + ' alike, ' + formatClock(entry.firstAtMs) + ' to ' + formatClock(atMs) : null;
  return h('li', { 'data-kind': e.kind, 'data-count': count > 1 ? count : null, title: title }, [
    h('time', {}, [formatClock(atMs)]), h('span', { class: 'kind kind-' + String(e.kind) }, [String(e.kind)]), h('span', { class: 'text' }, [String(e.text)]),
    count > 1 ? h('span', { class: 'count' }, ['\u00d7' + count]) : null,
  ]);
}
`;
