'use strict';
// The dashboard's core: login, the JSON-RPC client, routing by the URL's
// hash, and live updates from /ui/events.

const H = {csrf: '', auth: '', info: null, contexts: [], ctx: 0, view: null, streams: [], changes: null,
  busy: false, again: false, confirming: null, unconfirm: null};
const Views = {};

async function rpc(method, params) {
  const r = await fetch('/rpc', {method: 'POST', credentials: 'same-origin',
    headers: {'Content-Type': 'application/json', 'X-Hyphae-CSRF': H.csrf},
    body: JSON.stringify({jsonrpc: '2.0', id: 1, method: method, params: params || {}})});
  if (r.status === 401) { showLogin('Your session ended.'); throw new Error('not logged in'); }
  const j = await r.json();
  if (j.error) throw new Error(j.error.message);
  return j.result;
}

// act runs an action the user asked for and says how it went.
async function act(what, method, params) {
  try {
    const res = await rpc(method, params);
    toast(what + ': done');
    return res;
  } catch (e) {
    toast(what + ': ' + e.message, true);
    return null;
  }
}

function showLogin(why) {
  closeStreams();
  H.info = null;
  if (H.changes) { H.changes.close(); H.changes = null; }
  fill(document.getElementById("view"), el('div', {class: 'card login', id: 'login'},
    el('h2', {}, 'Log in to this agent'),
    why ? el('p', {class: 'note'}, why) : null,
    el('p', {}, 'On the agent\'s machine run'), el('pre', {}, 'hyphae ui --url'),
    el('p', {}, 'and open the URL it prints. The link works once, for two minutes.')));
}

async function login() {
  const m = location.hash.match(/^#login=([A-Za-z0-9_-]+)/);
  if (m) {
    history.replaceState(null, '', location.pathname + '#/overview');
    const r = await fetch('/ui/login', {method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token: m[1]})});
    const j = await r.json();
    if (r.ok) { H.csrf = j.csrf; H.auth = j.auth; return true; }
    return resume(j.error);
  }
  return resume();
}

// resume goes on with the session the browser has, if any; why says why
// a login token was refused.
async function resume(why) {
  const r = await fetch('/ui/session', {credentials: 'same-origin'});
  const j = await r.json();
  if (!r.ok) { showLogin(why); return false; }
  if (why) toast(why, true);
  H.csrf = j.csrf || ''; H.auth = j.auth;
  return true;
}

async function boot() {
  if (!await login()) return;
  document.getElementById('logout').hidden = H.auth !== 'session';
  document.getElementById('logout').onclick = async () => {
    await fetch('/ui/logout', {method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': 'application/json', 'X-Hyphae-CSRF': H.csrf}, body: '{}'});
    showLogin('Logged out.');
  };
  H.info = await rpc('node.info');
  await loadContexts();
  route();
}

// onHash routes, or logs in again when a login URL is pasted into a tab
// that has the page open already (a change of hash does not reload it).
function onHash() {
  if (/^#login=/.test(location.hash)) boot().catch(e => toast(e.message, true));
  else if (H.info) route();
}

async function loadContexts() {
  H.contexts = await rpc('context.list');
  const want = Number(localStorage.getItem('hyphae.ctx')) || (H.contexts[0] || {}).id || 0;
  H.ctx = H.contexts.some(c => c.id === want) ? want : ((H.contexts[0] || {}).id || 0);
  const sel = document.getElementById('context');
  sel.replaceChildren(...H.contexts.map(c => el('option', {value: c.id, selected: c.id === H.ctx},
    c.id + (c.name ? ' ' + c.name : ''))));
  sel.onchange = () => { H.ctx = Number(sel.value); localStorage.setItem('hyphae.ctx', H.ctx); listen(); route(); };
  listen();
}

// listen follows /ui/events for the chosen context: each "change" asks the
// view on screen to refresh, one refresh at a time.
function listen() {
  if (H.changes) H.changes.close();
  if (!H.ctx) return;
  const live = document.getElementById('live');
  const es = new EventSource('/ui/events?context=' + H.ctx);
  es.addEventListener('change', () => refresh());
  es.onopen = () => live.classList.add('on');
  es.onerror = () => live.classList.remove('on');
  H.changes = es;
}

async function refresh() {
  if (!H.view || !H.view.refresh) return;
  if (H.busy) { H.again = true; return; }
  H.busy = true;
  try { await H.view.refresh(); } catch (e) { console.warn(e); }
  H.busy = false;
  if (H.again) { H.again = false; refresh(); }
}

function closeStreams() {
  for (const s of H.streams) s.close();
  H.streams = [];
}

// follow opens an EventSource that closes when the view changes.
function follow(url) {
  const es = new EventSource(url);
  H.streams.push(es);
  return es;
}

function parseRoute() {
  const h = location.hash.replace(/^#\/?/, '');
  const [path, query] = h.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return {name: parts[0] || 'overview', args: parts.slice(1), q: new URLSearchParams(query || '')};
}

async function route() {
  closeStreams();
  unconfirm(); // a question asked on another view is not pending on this one
  if (!H.changes) listen();
  const r = parseRoute();
  const nav = {job: 'jobs', flow: 'flows'}[r.name] || r.name;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('on', a.dataset.view === nav);
  const make = Views[r.name] || Views.overview;
  const root = document.getElementById('view');
  const view = make(r);
  H.view = view;
  try {
    fill(root, await view.render());
  } catch (e) {
    fill(root, el('div', {class: 'card note'}, 'Could not load this view: ' + e.message));
  }
}

function go(hash) { location.hash = hash; }

function jobHref(ctx, key) { return '#/job/' + ctx + '/' + encodeURIComponent(key); }

window.addEventListener('DOMContentLoaded', () => {
  window.addEventListener('hashchange', onHash);
  document.addEventListener('keydown', e => { if (e.key === 'Escape') unconfirm(); });
  boot().catch(e => toast(e.message, true));
});
