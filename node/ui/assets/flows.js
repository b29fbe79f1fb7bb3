'use strict';
// Flows: the list with progress, and one flow with its DAG drawn as SVG
// from flow.dag's levels, each node a job in its live state.

Views.flows = () => {
  const box = el('div', {id: 'flows'});
  const v = {
    async render() { await v.refresh(); return box; },
    async refresh() {
      let fs;
      try {
        fs = await rpc('flow.list', {context: H.ctx});
      } catch (e) {
        fill(box, el('h2', {}, 'Flows'), el('p', {class: 'note'}, e.message));
        return;
      }
      fs.sort((a, b) => b.id - a.id);
      fill(box, el('h2', {}, 'Flows · context ' + H.ctx), fs.length ? table(['ID', 'NAME', 'STATUS', 'PROGRESS', 'CREATED'],
        fs.map(f => el('tr', {class: 'click', 'data-flow': f.id, onclick: () => go('#/flow/' + H.ctx + '/' + f.id)},
          el('td', {}, String(f.id)), el('td', {}, f.name), el('td', {}, badge(f.status)),
          el('td', {}, progressBar(f.progress)), el('td', {title: when(f.created_at)}, ago(f.created_at)))))
        : el('p', {class: 'muted'}, 'no flows in this context'));
    },
  };
  return v;
};

function progressBar(p) {
  const part = (n, color) => n ? el('span', {style: {width: (100 * n / p.total) + '%', background: color}}) : null;
  return el('div', {class: 'progress'},
    el('div', {class: 'bar'}, part(p.completed, '#2e7d32'), part(p.failed, '#c62828'), part(p.cancelled, '#9e9e9e'),
      part((p.running || 0) + (p.dispatched || 0), '#1565c0')),
    el('span', {class: 'muted'}, (p.done || 0) + '/' + p.total));
}

Views.flow = (r) => {
  const ctx = Number(r.args[0]), id = Number(r.args[1]);
  const box = el('div', {id: 'flow'});
  let streaming = false;
  const v = {
    async render() { await v.refresh(); return box; },
    async refresh() {
      const [st, dag] = await Promise.all([rpc('flow.status', {context: ctx, id: id}), rpc('flow.dag', {context: ctx, id: id})]);
      fill(box, flowDetail(ctx, st, dag));
      if (!streaming && !flowEnded(st.status)) {
        streaming = true;
        const es = follow('/events/flow?context=' + ctx + '&id=' + id);
        es.addEventListener('flow', () => refresh());
        es.addEventListener('end', () => { es.close(); refresh(); });
      }
    },
  };
  return v;
};

function flowDetail(ctx, st, dag) {
  const keyOf = Object.fromEntries(st.jobs.map(j => [j.name, j.key]));
  const compOf = Object.fromEntries(st.jobs.filter(j => j.compensation).map(j => [j.name, j.compensation.state]));
  const live = !flowEnded(st.status);
  return el('div', {},
    el('h2', {}, 'Flow ' + st.id + ' · ' + st.name + ' ', el('span', {id: 'flow-status'}, badge(st.status)), ' ',
      live ? confirmable('cancel flow ' + ctx + ' ' + st.id, 'Really cancel flow ' + st.id + '?', {class: 'danger', id: 'flow-cancel'}, 'Cancel',
        () => act('cancel flow ' + st.id, 'flow.cancel', {context: ctx, id: st.id}).then(() => H.view.refresh()))
        : el('button', {id: 'flow-rerun', title: 'run the jobs that did not complete again (flow.rerun)',
          onclick: () => rerun(ctx, st.id, '')}, 'Rerun')),
    el('div', {class: 'grid'}, card('Flow', kv([['progress', progressBar(st.progress)], ['created', when(st.created_at)],
      ['started', when(st.started_at)], ['ended', when(st.ended_at)], ['on failure', st.on_failure || '—'],
      st.error ? ['error', st.error] : null,
      st.compensation ? ['compensation', el('span', {id: 'flow-compensation'}, badge(st.compensation))] : null,
      st.compensation_error ? ['compensation error', st.compensation_error] : null])),
    card('Result', Object.keys(st.result || {}).length ? kv(Object.entries(st.result)) : el('p', {class: 'muted'}, 'none'))),
    card('DAG', dagSVG(ctx, dag, keyOf, compOf),
      el('p', {class: 'muted'}, 'Click a job to open it. Once the flow ended, "Rerun from here" in the jobs below runs ' +
        'that job and everything that depends on it again, reusing the other results (flow.rerun).')),
    card('Jobs', table(['JOB', 'KEY', 'STATE', ['RAN ON', 'the agent that ran the job; reused: a rerun took its result from the earlier run'], 'TYPE', 'ATTEMPT',
      ['WAIT+RUN', 'from dispatch to end: the wait in the queue and the run (the job page shows them apart)'], 'NEEDS', 'COMPENSATION', 'ERROR', ''], st.jobs.map(j =>
      el('tr', {class: 'click', 'data-name': j.name, onclick: () => j.key && go(jobHref(ctx, j.key))},
        el('td', {}, j.name), el('td', {}, el('code', {}, j.key || '—')),
        el('td', {}, badge(j.state)), el('td', {class: 'ran-on', 'data-runner': j.runner || '', 'data-reused': j.reused_from || '',
          title: (j.runner || '') + (j.reused_from ? ' (result reused from ' + j.reused_from + ')' : '')}, ranOn(j)), el('td', {}, j.script_type), el('td', {}, String(j.attempt)), el('td', {}, ['pending', 'ready'].includes(j.state) ? '—' : dur(j.duration_seconds)),
        el('td', {}, (j.needs || []).join(', ')),
        el('td', {'data-compensation': j.compensation ? j.compensation.state : ''}, j.compensation ? compensationLink(ctx, j.compensation) : ''),
        el('td', {class: 'muted text'}, j.error || ''),
        el('td', {}, live ? '' : el('button', {class: 'rerun-from', onclick: e => { e.stopPropagation(); rerun(ctx, st.id, j.name); }},
          'Rerun from here')))))));
}

// ranOn says where a job ran: its agent's host name, else its short peer
// or runner id; "reused" when a rerun took its result from the earlier run.
function ranOn(j) {
  const where = j.host || (j.runner ? short(j.runner) : '');
  return j.reused_from ? 'reused' + (where ? ' · ' + where : '') : where || '—';
}

function compensationLink(ctx, c) {
  const b = badge(c.state);
  return c.key ? el('a', {href: jobHref(ctx, c.key), onclick: e => e.stopPropagation()}, b) : b;
}

// rerun starts a new run of the ended flow id (from a job, or "" for the
// jobs that did not complete) and opens it.
async function rerun(ctx, id, from) {
  const f = await act('rerun flow ' + id + (from ? ' from ' + from : ''), 'flow.rerun', from ? {context: ctx, id: id, from: from} : {context: ctx, id: id});
  if (f) go('#/flow/' + ctx + '/' + f.id);
}

// dagSVG lays the levels out left to right, a column per level, and draws
// each edge as a curve from the upstream job to the downstream one.
function dagSVG(ctx, dag, keyOf, compOf) {
  const nw = 150, nh = 34, gx = 70, gy = 18, pad = 16;
  const pos = {};
  dag.levels.forEach((level, i) => level.forEach((id, k) => {
    pos[id] = {x: pad + i * (nw + gx), y: pad + k * (nh + gy)};
  }));
  const rows = Math.max(1, ...dag.levels.map(l => l.length));
  const w = pad * 2 + dag.levels.length * (nw + gx) - gx, h = pad * 2 + rows * (nh + gy) - gy;
  const edges = dag.edges.filter(e => pos[e.from] && pos[e.to]).map(e => {
    const a = pos[e.from], b = pos[e.to];
    const x1 = a.x + nw, y1 = a.y + nh / 2, x2 = b.x, y2 = b.y + nh / 2, mx = (x1 + x2) / 2;
    return svgEl('path', {class: 'edge', d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2 - 6},${y2}`, 'marker-end': 'url(#arrow)'});
  });
  const nodes = Object.values(dag.nodes).filter(n => pos[n.id]).map(n => {
    const p = pos[n.id], key = keyOf[n.name] || ('job:' + dag.caller_id + ':' + n.id);
    const label = (n.name || String(n.id)), comp = compOf[label];
    const where = ranOn(n), line = n.node_status + ' · ' + (comp ? (comp === 'completed' ? 'undone' : 'undo ' + comp)
      : where !== '—' ? where : n.script_type);
    return svgEl('g', {class: 'node st-' + n.node_status, 'data-job': key, 'data-name': label, 'data-state': n.node_status,
      'data-compensation': comp || '', 'data-runner': n.runner || '', 'data-host': n.host || '', 'data-reused': n.reused_from || '',
      transform: `translate(${p.x},${p.y})`, onclick: () => go(jobHref(ctx, key))},
    svgEl('title', {}, label + ': ' + n.node_status + (comp ? ', compensation ' + comp : '') +
      (where !== '—' ? ', ran on ' + where : '') + ' (' + key + ')'),
    svgEl('rect', {width: nw, height: nh}),
    svgEl('text', {x: 10, y: 15}, label.length > 18 ? label.slice(0, 17) + '…' : label),
    svgEl('text', {x: 10, y: 28, 'font-size': 10, opacity: 0.85}, line.length > 26 ? line.slice(0, 25) + '…' : line));
  });
  // Scaled to the card's width (never above its own size, never below
  // half of it); a DAG wider than that scrolls inside its box.
  const svg = svgEl('svg', {class: 'dag', id: 'dag', viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: 'xMinYMin meet',
    style: {width: '100%', maxWidth: w + 'px', minWidth: Math.round(w / 2) + 'px', height: 'auto'}},
    svgEl('defs', {}, svgEl('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto'},
      svgEl('path', {d: 'M0,0 L10,5 L0,10 z', fill: '#90a4ae'}))),
    edges, nodes);
  return el('div', {class: 'dag-box', id: 'dag-box'}, svg);
}

function flowEnded(status) { return status === 'finished' || status === 'error'; }
