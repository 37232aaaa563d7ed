// The dashboard script's page part, as browser JavaScript: reads the control API (/api/v1), follows its event
// stream (EventSource) into the event log (a repeat folded into the newest entry: client-helpers.ts), refreshes the
// status every few seconds, draws equity and drawdown (lightweight-charts), and sends the operator's commands (kill
// switch, pause, resume). A command that changes trading is asked in the page's one dialog (page.ts), whose buttons
// say what each does, the safe one focused and taken by Escape; the kill switch's reason is typed there.
// Every text shown goes in through textContent: nothing from the venue or a strategy is parsed as HTML.
// The page signs in through the daemon's sign-in link (GET /login?token=…, which sets an HttpOnly SameSite=Strict
// cookie the page cannot read): a refused read offers to paste the token, which goes to that link, never to storage.
// The text holds no backtick and no `${`: it lives in a template string.
import { CLIENT_HELPERS } from './client-helpers.js';
import { CLIENT_VIEWS } from './client-views.js';

const CLIENT_APP = String.raw`
const API = '/api/v1';
const REFRESH_MS = 3000;
const EVENTS_MAX = 200;
const EVENT_KINDS = ['order', 'fill', 'state', 'equity', 'strategy', 'command'];
const SURFACE_COLORS = ['#2962ff', '#ff9800', '#9c27b0', '#00897b'];

class ApiError extends Error {}

/** Not signed in (no cookie, or one of an earlier start's token): the token asked once, then the sign-in link opened. */
let signInAsked = false;
function signIn() {
  if (signInAsked) return;
  signInAsked = true;
  const given = window.prompt('Not signed in. Open the link the daemon printed at start (or run: sextant dashboard), or paste the daemon\'s token here:');
  if (given && given.trim()) window.location.assign('/login?token=' + encodeURIComponent(given.trim()));
}

/** A call to the control API (the session cookie goes with it): the parsed JSON answer, or an ApiError with the API's own error text. */
async function api(path, body) {
  // The surface named: the daemon journals commands as given through the dashboard.
  const headers = { accept: 'application/json', 'x-sextant-client': 'dashboard' };
  const init = { method: body === undefined ? 'GET' : 'POST', headers: headers, credentials: 'same-origin' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(API + path, init);
  if (res.status === 401) signIn();
  const answer = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError((answer && answer.error) || res.status + ' ' + res.statusText);
  return answer;
}

// ---- charts -------------------------------------------------------------------------------------------------

const DAY_MS = 24 * 3600 * 1000;
const charts = { equity: null, drawdown: null, lines: {}, dd: {}, data: {}, loaded: false, lastAtMs: 0 };

function chartOptions() {
  return {
    autoSize: true,
    layout: { background: { color: '#ffffff' }, textColor: '#1d2330', attributionLogo: false },
    grid: { vertLines: { color: '#f0f2f7' }, horzLines: { color: '#f0f2f7' } },
    timeScale: { timeVisible: true, secondsVisible: true },
  };
}

function surfaceLines(surface) {
  if (charts.lines[surface]) return;
  const LW = window.LightweightCharts;
  const color = SURFACE_COLORS[Object.keys(charts.lines).length % SURFACE_COLORS.length];
  charts.lines[surface] = charts.equity.addSeries(LW.LineSeries, { color: color, lineWidth: 2, title: surface });
  charts.dd[surface] = charts.drawdown.addSeries(LW.AreaSeries, { lineColor: color, topColor: 'rgba(242,54,69,0.02)', bottomColor: 'rgba(242,54,69,0.25)', lineWidth: 1, title: surface });
  const item = document.createElement('span');
  item.textContent = surface;
  item.style.setProperty('--swatch', color);
  document.getElementById('chart-legend').appendChild(item);
}

/** One equity point more on its surface's lines (its drawdown recomputed: the series is small). */
function addPoint(p) {
  const added = addEquityPoint(charts.data, p);
  if (!added) return;
  charts.lastAtMs = Math.max(charts.lastAtMs, p.atMs);
  surfaceLines(added.surface);
  charts.lines[added.surface].update(added.point);
  const dd = drawdownOf(charts.data[added.surface]);
  charts.dd[added.surface].update(dd[dd.length - 1]);
}

/** The last day's equity the first time; then only the points newer than the latest one drawn. */
async function loadEquity(nowMs) {
  const LW = window.LightweightCharts;
  if (!LW) return;
  if (!charts.equity) {
    charts.equity = LW.createChart(document.getElementById('equity'), chartOptions());
    charts.drawdown = LW.createChart(document.getElementById('drawdown'), chartOptions());
  }
  if (charts.loaded) {
    for (const p of await api('/equity?since=' + (charts.lastAtMs + 1))) addPoint(p);
    return;
  }
  const points = await api('/equity?since=' + Math.max(0, nowMs - DAY_MS));
  charts.data = equityBySurface(points);
  for (const p of points) if (typeof p.atMs === 'number') charts.lastAtMs = Math.max(charts.lastAtMs, p.atMs);
  for (const surface of Object.keys(charts.data)) {
    surfaceLines(surface);
    charts.lines[surface].setData(charts.data[surface]);
    charts.dd[surface].setData(drawdownOf(charts.data[surface]));
  }
  charts.equity.timeScale().fitContent();
  charts.drawdown.timeScale().fitContent();
  charts.loaded = true;
}

/** An equity event from the stream: drawn at once (the refresh also reads what is newer, should one be missed). */
function onEquity(e) {
  if (charts.loaded) for (const p of equityPointsOf(e)) addPoint(p);
}

// ---- refresh ------------------------------------------------------------------------------------------------

const view = { status: null, strategies: [], orders: [], positions: [] };
let refreshing = null;
let refreshAgain = false;

/** Reads everything the page shows; a refresh asked for while one runs happens once after it. */
function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      const [status, strategies, orders, fills, balances, positions] = await Promise.all([
        api('/status'), api('/strategies'), api('/orders?scope=open&limit=200'), api('/fills?limit=50'), api('/balances'), api('/positions'),
      ]);
      view.status = status;
      view.strategies = strategies;
      view.orders = orders;
      view.positions = positions;
      renderStatus(status);
      renderStrategies(strategies);
      renderOrders(orders, status.nowMs);
      renderFills(fills);
      renderBalances(balances);
      renderPositions(positions);
      setReadError(null);
      await loadEquity(status.nowMs);
    } catch (err) {
      setReadError(err);
    } finally {
      refreshing = null;
      if (refreshAgain) {
        refreshAgain = false;
        void refresh();
      }
    }
  })();
  return refreshing;
}

let soon = null;
/** A refresh shortly (events come in bursts: one read for a burst). */
function refreshSoon() {
  if (soon !== null) return;
  soon = setTimeout(() => {
    soon = null;
    void refresh();
  }, 250);
}

function setReadError(err) {
  const el = document.getElementById('stream');
  if (err) {
    el.dataset.stream = 'down';
    el.textContent = 'API: ' + (err instanceof Error ? err.message : String(err));
  } else if (el.dataset.stream === 'down') {
    el.dataset.stream = stream && stream.readyState === 1 ? 'live' : 'connecting';
    el.textContent = el.dataset.stream;
  }
}

// ---- the event stream ---------------------------------------------------------------------------------------

/** The log's entries, newest first: {li, entry}. */
const eventItems = [];
let stream = null;

/** An event on top of the log, or folded into the newest entry when it repeats it. */
function addEvent(e) {
  if (!e || typeof e !== 'object') return;
  const newest = eventItems[0];
  const folded = newest ? foldEvent(newest.entry, e) : null;
  if (folded) {
    const li = renderEvent(e, folded);
    newest.li.replaceWith(li);
    eventItems[0] = { li: li, entry: folded };
    return;
  }
  const entry = eventEntry(e);
  const li = renderEvent(e, entry);
  const list = document.getElementById('events');
  list.insertBefore(li, list.firstChild);
  for (const gone of pushBounded(eventItems, { li: li, entry: entry }, EVENTS_MAX)) gone.li.remove();
}

const TRADING_STATES = ['active', 'reducing', 'halted'];

function onEvent(e) {
  addEvent(e);
  // A change of trading state shows at once; the latches and the rest come with the refresh that follows.
  if (e.kind === 'state' && e.data && TRADING_STATES.includes(e.data.state)) {
    const el = document.getElementById('trading-state');
    el.dataset.state = e.data.state;
    el.textContent = e.data.state;
  }
  if (e.kind === 'equity') onEquity(e);
  else refreshSoon();
}

function setStream(state, text) {
  const el = document.getElementById('stream');
  el.dataset.stream = state;
  el.textContent = text;
}

function handleMessage(data) {
  try {
    onEvent(JSON.parse(data));
  } catch (err) {
    console.warn('unreadable event', err);
  }
}

/** Follows the event stream (EventSource sends the session cookie: same origin). */
function connect() {
  const source = new EventSource(API + '/stream');
  stream = source;
  // Read again once subscribed: a change between the page's first read and the subscription is not missed.
  source.onopen = () => {
    setStream('live', 'live');
    refreshSoon();
  };
  source.onerror = () => {
    setStream('connecting', 'reconnecting');
    // A refused stream (not a dropped connection) is not retried by the browser: once more shortly.
    if (source.readyState === 2) {
      stream = null;
      setTimeout(connect, 5000);
    }
  };
  const handle = (m) => handleMessage(m.data);
  for (const kind of EVENT_KINDS) source.addEventListener(kind, handle);
  source.onmessage = handle;
}

async function loadEvents() {
  try {
    const events = await api('/events?limit=100');
    // Oldest first: each goes on top of the one before it.
    for (const e of events) addEvent(e);
  } catch (err) {
    setReadError(err);
  }
}

// ---- the question dialog -----------------------------------------------------------------------------------

/**
 * Asks in the page's dialog: spec {title, text, reason (a reason field, required to act), choices: [{value, label,
 * danger}], safe (the label of not acting)}. Resolves {choice, reason} for a choice that acts, null for the safe one
 * or Escape (and at once while another question is open). Focus starts on the reason field when one is asked (typing
 * does nothing else), on the safe choice otherwise.
 */
function ask(spec) {
  const dialog = document.getElementById('ask');
  if (dialog.open) return Promise.resolve(null);
  setText('ask-title', spec.title);
  setText('ask-text', spec.text);
  setText('ask-problem', '');
  const field = document.getElementById('ask-reason-field');
  const input = document.getElementById('ask-reason');
  field.hidden = !spec.reason;
  input.value = '';
  const safe = h('button', { type: 'button', 'data-choice': '' }, [spec.safe]);
  const acts = spec.choices.map((c) => h('button', { type: 'button', class: c.danger ? 'danger' : null, 'data-choice': c.value }, [c.label]));
  document.getElementById('ask-choices').replaceChildren(...acts, safe);
  dialog.returnValue = '';
  return new Promise((resolve) => {
    const onClick = (ev) => {
      const button = ev.target instanceof Element ? ev.target.closest('button[data-choice]') : null;
      if (!button) return;
      if (button.dataset.choice && spec.reason && !input.value.trim()) {
        setText('ask-problem', 'A reason is required: it is journaled with the command.');
        input.focus();
        return;
      }
      dialog.close(button.dataset.choice);
    };
    dialog.addEventListener('click', onClick);
    dialog.addEventListener('close', () => {
      dialog.removeEventListener('click', onClick);
      resolve(dialog.returnValue ? { choice: dialog.returnValue, reason: input.value.trim() } : null);
    }, { once: true });
    dialog.showModal();
    (spec.reason ? input : safe).focus();
  });
}

// ---- commands -----------------------------------------------------------------------------------------------

/** The kill switch's questions: what the command does, and the button that does it (flatten's counts as last read). */
const KILL = {
  halt: () => ({ title: 'Halt trading?', text: 'Only cancels are allowed until a reset.', act: 'Halt trading', safe: "Don't halt", danger: true }),
  reduce: () => ({ title: 'Reduce?', text: 'Only orders that shrink exposure are allowed until a reset.', act: 'Reduce only', safe: "Don't reduce" }),
  reset: () => ({ title: 'Reset the kill switch?', text: 'Every latch is cleared and trading resumes.', act: 'Reset and trade', safe: "Don't reset" }),
  flatten: () => ({
    title: 'Flatten?', text: 'Trading halts; every order is canceled and every futures position closed at market. The counts are those last read: whatever is open then goes.',
    act: 'Flatten: cancel ' + countOf(view.orders.length, 'order') + ', close ' + countOf(view.positions.length, 'position'), safe: "Don't flatten", danger: true,
  }),
};

function showAnswer(what, ok, text) {
  const el = document.getElementById('answer');
  el.className = ok ? 'ok' : 'error';
  el.textContent = what + ': ' + (ok ? 'ok' : 'refused') + (text ? ' - ' + text : '');
}

async function command(what, path, body, button) {
  if (button) button.disabled = true;
  try {
    const answer = await api(path, body);
    showAnswer(what, true, answer && answer.detail);
  } catch (err) {
    showAnswer(what, false, err instanceof Error ? err.message : String(err));
  } finally {
    if (button) button.disabled = false;
    void refresh();
  }
}

async function onKill(button) {
  const name = button.dataset.command;
  const spec = KILL[name]();
  const answer = await ask({ title: spec.title, text: spec.text, reason: true, choices: [{ value: name, label: spec.act, danger: spec.danger }], safe: spec.safe });
  if (answer) await command(name, '/trading/' + name, { reason: answer.reason }, button);
}

async function onStrategyAction(button) {
  const id = button.dataset.strategy;
  const path = '/strategies/' + encodeURIComponent(id);
  if (button.dataset.action === 'pause') {
    const s = view.strategies.find((x) => x.id === id);
    const open = s ? s.openOrders : 0;
    const choices = open > 0
      ? [{ value: 'cancel', label: 'Pause and cancel ' + countOf(open, 'order'), danger: true }, { value: 'keep', label: 'Pause, keep orders' }]
      : [{ value: 'keep', label: 'Pause' }];
    const text = 'It sends no new orders until resumed.' + (open > 0 ? ' Its ' + countOf(open, 'open order') + ' can be canceled or left resting.' : '');
    const answer = await ask({ title: 'Pause ' + id + '?', text: text, choices: choices, safe: "Don't pause" });
    if (answer) await command('pause ' + id, path + '/pause', { cancelOrders: answer.choice === 'cancel' }, button);
  } else if (button.dataset.action === 'resume') {
    await command('resume ' + id, path + '/resume', {}, button);
  }
}

document.addEventListener('click', (ev) => {
  const button = ev.target instanceof Element ? ev.target.closest('button') : null;
  if (!button || button.disabled) return;
  if (button.dataset.command) void onKill(button);
  else if (button.dataset.action) void onStrategyAction(button);
});

// ---- start --------------------------------------------------------------------------------------------------

// The event stream and the log at once, beside the first read (the session cookie goes with each): a change that
// happens while the page loads is not left to the next periodic refresh.
connect();
void loadEvents();
void refresh().then(() => setInterval(() => void refresh(), REFRESH_MS));
`;

/** The page's script, served at `/dashboard/app.js`: helpers, views and the page's wiring in one strict scope. */
export const DASHBOARD_JS = `'use strict';\n(() => {\n${CLIENT_HELPERS}\n${CLIENT_VIEWS}\n${CLIENT_APP}\n})();\n`;
