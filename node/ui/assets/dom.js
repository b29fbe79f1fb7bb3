'use strict';
// DOM helpers: every value from the agent goes in as text, never as HTML.

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  append(e, kids);
  return e;
}

function svgEl(tag, attrs, ...kids) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttrs(e, attrs);
  append(e, kids);
  return e;
}

function setAttrs(e, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else if (k === 'style') Object.assign(e.style, v); // CSSOM: the CSP allows no inline style attribute
    else e.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(e, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k === undefined || k === null || k === false) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
}

function badge(state) {
  return el('span', {class: 'badge s-' + (state || 'none'), 'data-state': state || ''}, state || '—');
}

function when(unix) {
  if (!unix) return '—';
  const d = new Date(unix * 1000);
  return d.toLocaleString(undefined, {hour12: false});
}

function ago(unix) {
  if (!unix) return '—';
  const s = Math.max(0, Math.round(Date.now() / 1000 - unix));
  if (s < 60) return s + 's ago';
  if (s < 3600) return Math.floor(s / 60) + 'm ago';
  if (s < 86400) return Math.floor(s / 3600) + 'h ago';
  return Math.floor(s / 86400) + 'd ago';
}

// durMS is a duration in ms: "0.250s" under 10 s, then as dur.
function durMS(ms) {
  if (ms === undefined || ms === null || ms < 0 || Number.isNaN(ms)) return '—';
  if (ms < 10000) return (ms / 1000).toFixed(3) + 's';
  return dur(Math.round(ms / 1000));
}

function dur(sec) {
  if (sec === undefined || sec === null || sec < 0) return '—';
  if (sec < 60) return sec + 's';
  if (sec < 3600) return Math.floor(sec / 60) + 'm' + (sec % 60) + 's';
  return Math.floor(sec / 3600) + 'h' + Math.floor((sec % 3600) / 60) + 'm';
}

function short(id) {
  if (!id) return '—';
  return id.length > 16 ? id.slice(0, 8) + '…' + id.slice(-6) : id;
}

// table is a table in a box that scrolls sideways when it is wider than
// its card, so a wide one never widens the page. A head entry is a
// title, or [title, tooltip].
function table(head, rows) {
  const th = h => Array.isArray(h) ? el('th', {title: h[1]}, h[0]) : el('th', {}, h);
  return el('div', {class: 'scroll'}, el('table', {}, el('thead', {}, el('tr', {}, head.map(th))),
    el('tbody', {}, rows)));
}

function card(title, ...kids) {
  return el('section', {class: 'card'}, title ? el('h3', {}, title) : null, kids);
}

// kv is a list of name → value pairs; cls adds a class (kv text: values
// keep their line breaks).
function kv(pairs, cls) {
  return el('dl', {class: 'kv' + (cls ? ' ' + cls : '')}, pairs.filter(p => p).map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

function toast(msg, bad) {
  const t = document.getElementById('toast');
  t.textContent = msg;
  t.className = bad ? 'bad' : '';
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 8000 : 3000);
}

// fill replaces e's children with kids (arrays flattened, empty ones skipped).
function fill(e, ...kids) {
  e.replaceChildren();
  append(e, kids);
  return e;
}

// confirmable is a button for a destructive action that asks first: a
// click turns it into "question Yes No", and only Yes runs onYes; No or
// Escape puts the button back. The question pending (H.confirming, by
// key) survives the view redrawing itself while the user decides.
function confirmable(key, question, attrs, label, onYes) {
  const box = el('span', {class: 'confirmable'});
  const button = el('button', Object.assign({}, attrs, {onclick: e => { e.stopPropagation(); ask(true); }}), label);
  const back = () => { if (H.confirming === key) { H.confirming = null; H.unconfirm = null; } fill(box, button); };
  const ask = (focus) => {
    if (H.unconfirm) H.unconfirm(); // one question at a time
    H.confirming = key;
    H.unconfirm = back;
    const no = el('button', {class: 'confirm-no', type: 'button', onclick: e => { e.stopPropagation(); back(); }}, 'No');
    fill(box, el('span', {class: 'confirm', 'data-confirm': key, role: 'alertdialog'}, question + ' ',
      el('button', {class: 'confirm-yes danger', type: 'button', onclick: e => { e.stopPropagation(); back(); onYes(); }}, 'Yes'),
      ' ', no));
    if (focus && no.focus) no.focus(); // not when a redraw asks again
  };
  if (H.confirming === key) ask(false); else fill(box, button);
  return box;
}

// unconfirm drops the question pending, if any (Escape, a new view).
function unconfirm() {
  if (H.unconfirm) H.unconfirm();
  H.confirming = null; H.unconfirm = null;
}
