'use strict';
// The views: overview, jobs, one job, dead letters, contexts. Each is
// {render() → element, refresh()?} made from the route.

Views.overview = () => {
  const box = el('div', {id: 'overview'});
  const v = {
    async render() { await v.refresh(); return box; },
    async refresh() {
      const [info, peers, stats] = await Promise.all([rpc('node.info'), rpc('peer.list'),
        H.ctx ? rpc('ui.stats', {context: H.ctx}) : null]);
      fill(box, el('h2', {}, 'Overview'), el('div', {class: 'grid'},
        card('This agent', agentCard(info)), card('Contexts', contextsCard(stats))),
        card('Peers', peersPicture(info, peers)),
        stats ? el('div', {class: 'grid'}, card('Queues · context ' + H.ctx, queuesCard(stats)),
          card('Jobs per minute, last hour · context ' + H.ctx, rateChart(stats.rates))) : null,
        stats ? card('Recent failures · context ' + H.ctx, failuresCard(stats)) : null);
    },
  };
  return v;
};

function agentCard(info) {
  return kv([['peer ID', el('code', {id: 'peer-id'}, info.peer_id)], ['roles', info.roles.join(', ')],
    ['version', info.version], ['store', info.store + (info.persistent ? ' (persistent)' : ' (not persistent)')],
    ['uptime', dur(info.uptime_seconds)], ['types', info.script_types.join(', ')], ['API', info.api || 'socket only'],
    info.draining ? ['state', badge('draining')] : null, info.isolation ? ['isolation', info.isolation] : null,
    info.containment ? ['containment', info.containment] : null]);
}

function contextsCard(stats) {
  return table(['ID', 'NAME', 'ADMINS', 'EXECUTORS', 'READERS', 'JOBS'], H.contexts.map(c =>
    el('tr', {}, el('td', {}, String(c.id)), el('td', {}, c.name || ''), el('td', {}, c.admins.join(' ')),
      el('td', {}, c.executors.join(' ')), el('td', {}, c.readers.join(' ')),
      el('td', {}, stats && stats.context === c.id ? countsLine(stats.counts) : el('span', {class: 'muted'}, 'select it')))));
}

function countsLine(counts) {
  const parts = Object.entries(counts).sort().map(([s, n]) => [badge(s), ' ' + n + ' ']);
  return parts.length ? el('span', {}, parts) : el('span', {class: 'muted'}, 'none');
}

function peersPicture(info, peers) {
  const self = {peer_id: info.peer_id, state: 'up', roles: info.roles, script_types: info.script_types, self: true, host: info.host};
  const all = [self].concat(peers.filter(p => p.peer_id !== info.peer_id));
  return el('div', {class: 'peers', id: 'peers'}, all.map(p => el('div', {class: 'peer ' + p.state + (p.self ? ' self' : ''),
    'data-peer': p.peer_id, title: p.peer_id},
  el('div', {}, el('code', {}, short(p.peer_id)), ' ', badge(p.state), p.self ? ' (this agent)' : ''),
  p.host ? el('div', {class: 'host', 'data-host': p.host}, p.host) : null,
  p.breaker ? el('div', {class: 'breaker', 'data-breaker': p.breaker.state}, 'breaker ', badge(p.breaker.state),
    p.breaker.failures ? ' · ' + p.breaker.failures + ' failed in a row' : '',
    p.breaker.state === 'open' && p.breaker.until ? ' · probe in ' + dur(Math.max(0, p.breaker.until - Math.round(Date.now() / 1000))) : '',
    p.breaker.last_error ? el('div', {class: 'muted'}, p.breaker.last_error) : null) : null,
  el('div', {class: 'muted'}, (p.roles || []).join(', ') + (p.script_types && p.script_types.length ? ' · ' + p.script_types.join(' ') : '')),
  p.self ? null : el('div', {class: 'muted'}, 'load ' + p.load + '/' + (p.capacity || '?') + ' · seen ' + ago(p.last_seen) +
    (p.version ? ' · ' + p.version : '')))));
}

function queuesCard(stats) {
  const qs = Object.entries(stats.queues || {});
  return el('div', {}, qs.length ? table(['TYPE', 'WAITING'], qs.map(([t, n]) =>
    el('tr', {}, el('td', {}, t), el('td', {'data-queue': t}, String(n))))) : el('p', {class: 'muted'}, 'no queue has jobs waiting'),
  el('p', {}, 'jobs: ', String(stats.jobs), ' · ', countsLine(stats.counts)));
}

// rateChart draws created, finished and failed jobs per minute as bars.
function rateChart(rates) {
  const w = 600, h = 120, bw = w / rates.length;
  const top = Math.max(1, ...rates.map(r => Math.max(r.created, r.finished + r.failed)));
  const y = n => h - 14 - (n / top) * (h - 24);
  const bars = rates.flatMap((r, i) => [
    svgEl('rect', {x: i * bw + 1, y: y(r.finished), width: bw / 2 - 1, height: h - 14 - y(r.finished), fill: '#2e7d32'},
      svgEl('title', {}, new Date(r.at * 1000).toLocaleTimeString() + ': ' + r.created + ' created, ' + r.finished + ' finished, ' + r.failed + ' failed')),
    svgEl('rect', {x: i * bw + 1, y: y(r.finished + r.failed), width: bw / 2 - 1, height: y(r.finished) - y(r.finished + r.failed), fill: '#c62828'}),
    svgEl('rect', {x: i * bw + bw / 2, y: y(r.created), width: bw / 2 - 1, height: h - 14 - y(r.created), fill: '#90a4ae'})]);
  // The legend is HTML under the chart, where it wraps to the card's
  // width; inside the SVG it would be cut off by a narrow card.
  const key = (color, what) => el('span', {class: 'key'}, el('span', {class: 'swatch', style: {background: color}}), what);
  return el('div', {},
    svgEl('svg', {viewBox: '0 0 ' + w + ' ' + h, width: '100%', class: 'chart', id: 'rate-chart'}, bars,
      svgEl('text', {x: 0, y: h - 2, 'font-size': 10, fill: '#6b7280'}, '-60 min'),
      svgEl('text', {x: w, y: h - 2, 'font-size': 10, fill: '#6b7280', 'text-anchor': 'end'}, 'now')),
    el('div', {class: 'legend', id: 'rate-legend'}, key('#90a4ae', 'created'), key('#2e7d32', 'finished'),
      key('#c62828', 'failed'), el('span', {class: 'muted'}, 'max ' + top + '/min')));
}

function failuresCard(stats) {
  if (!stats.failures.length) return el('p', {class: 'muted'}, 'no failed jobs');
  return table(['JOB', 'NAME', 'TYPE', 'ERROR', 'WHEN'], stats.failures.map(f =>
    el('tr', {class: 'click', onclick: () => go(jobHref(H.ctx, f.key))}, el('td', {}, el('code', {}, f.key)),
      el('td', {}, f.name || ''), el('td', {}, f.script_type), el('td', {}, f.error), el('td', {}, ago(f.updated_at)))));
}

const jobStatuses = ['dispatched', 'waiting_for_prerequisites', 'started', 'error', 'finished'];

Views.jobs = (r) => {
  const q = r.q;
  const f = {status: q.get('status') || '', type: q.get('type') || '', flow: q.get('flow') || '', name: q.get('name') || '',
    within: q.get('within') || '', offset: Number(q.get('offset')) || 0, limit: 50};
  const within = el('select', {name: 'within'}, [['', 'any time'], ['3600', 'last hour'], ['86400', 'last day'],
    ['604800', 'last week']].map(([v, t]) => el('option', {value: v, selected: v === f.within}, t)));
  const list = el('div', {id: 'jobs-list'});
  const input = (k, ph) => el('input', {name: k, value: f[k], placeholder: ph, size: 14});
  const form = el('form', {class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    for (const k of ['type', 'flow', 'name', 'within']) if (form.elements[k].value) p.set(k, form.elements[k].value);
    if (f.status) p.set('status', f.status);
    go('#/jobs?' + p);
  }}, el('label', {}, 'type', input('type', 'sh')), el('label', {}, 'flow', input('flow', 'flow id')),
  el('label', {}, 'name or key', input('name', 'contains…')), el('label', {}, 'created', within),
  el('button', {type: 'submit'}, 'Filter'));
  const href = (o) => {
    const p = new URLSearchParams();
    for (const k of ['status', 'type', 'flow', 'name', 'within']) { const x = k in o ? o[k] : f[k]; if (x) p.set(k, x); }
    if (o.offset) p.set('offset', o.offset);
    return '#/jobs?' + p;
  };
  const v = {
    async render() {
      await v.refresh();
      return el('div', {}, el('h2', {}, 'Jobs · context ' + H.ctx), form, list);
    },
    async refresh() {
      const page = await rpc('job.page', {context: H.ctx, status: f.status, type: f.type, flow: Number(f.flow) || 0,
        name: f.name, since: f.within ? Math.floor(Date.now() / 1000) - Number(f.within) : 0, offset: f.offset, limit: f.limit});
      const all = Object.values(page.counts).reduce((a, b) => a + b, 0);
      const tabs = el('div', {class: 'tabs'}, el('a', {href: href({status: ''}), class: f.status ? '' : 'on'}, 'all ' + all),
        jobStatuses.map(s => el('a', {href: href({status: s}), class: f.status === s ? 'on' : ''}, s + ' ' + (page.counts[s] || 0))));
      const rows = page.jobs.map(j => el('tr', {class: 'click', 'data-key': j.key, onclick: () => go(jobHref(H.ctx, j.key))},
        el('td', {}, el('code', {}, j.key)), el('td', {}, j.name || ''), el('td', {}, j.script_type), el('td', {}, badge(j.state)),
        el('td', {}, j.flow_id ? el('a', {href: '#/flow/' + H.ctx + '/' + j.flow_id, onclick: e => e.stopPropagation()}, String(j.flow_id)) : ''),
        el('td', {}, j.attempt + (j.retries ? '/' + (j.retries + 1) : '')), el('td', {class: 'nowrap', title: j.runner || ''}, short(j.runner)),
        el('td', {title: when(j.created_at)}, ago(j.created_at)),
        el('td', {title: 'created → ended: the wait in the queue and the run (the job page shows each)'},
          ended(j.status) ? dur(j.updated_at - j.created_at) : '—'), el('td', {class: 'muted text'}, j.error || '')));
      const last = Math.min(page.total, f.offset + page.jobs.length);
      fill(list, tabs, table(['KEY', 'NAME', 'TYPE', 'STATE', 'FLOW', 'ATTEMPT', 'RUNNER', 'CREATED',
        ['WAIT+RUN', 'from creation to end: the time the job waited in the queue and the time it ran; ' +
          'the job page shows them apart (job.page carries no start time)'], 'ERROR'], rows),
        el('div', {class: 'pager'}, el('span', {id: 'jobs-range'}, page.total ? (f.offset + 1) + '–' + last + ' of ' + page.total : 'no jobs'),
          f.offset > 0 ? el('a', {href: href({offset: Math.max(0, f.offset - f.limit)})}, '← newer') : null,
          last < page.total ? el('a', {href: href({offset: f.offset + f.limit})}, 'older →') : null));
    },
  };
  return v;
};

function ended(status) { return status === 'finished' || status === 'error'; }

// Env values are masked on screen only: job.load returns them as they are
// to whoever may read the job (docs/ui.md). A name that looks secret
// (secretish) hides its whole value; any other value is shown with what
// looks secret inside it masked (maskSecrets).
const secretish = /secret|token|passw|pass$|key|credential|auth|private|cookie|session/i;

// maskSecrets is val with the passwords of URLs (postgres://u:****@db) and
// of a DSN that starts it (u:****@tcp(db:3306)/x), and the values of
// secret-looking parameters (?access_token=****, ;password=****), masked.
function maskSecrets(val) {
  return String(val)
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\/\s:@?#]*:)[^\/\s?#]*@/gi, '$1****@')
    .replace(/^([^\s:@\/]+:)[^\s\/]*@/, '$1****@')
    .replace(/([?&;])([^=&;#\s?]+)=([^&;#\s]*)/g, (m, sep, name) => secretish.test(name) ? sep + name + '=****' : m);
}

// envValue is how the job page shows env value val of name k.
function envValue(k, val) {
  if (secretish.test(k)) return el('span', {class: 'muted', 'data-masked': k}, '•••••• (masked)');
  const shown = maskSecrets(val);
  return shown === String(val) ? val : el('span', {'data-masked-part': k, title: 'partly masked on screen'}, shown);
}

Views.job = (r) => {
  const ctx = Number(r.args[0]), key = r.args[1];
  const box = el('div', {id: 'job'});
  const logs = el('pre', {id: 'logs'});
  let next = 0, followed = false, rendered = false;
  // addLines shows lines, with their time and stream when the agent
  // sends them (entries: job.logs with meta, /events/job).
  const addLines = (lines, entries) => {
    const es = entries && entries.length === lines.length ? entries : lines.map(l => ({line: l}));
    for (const e of es) logs.append(logLine(e));
    logs.scrollTop = logs.scrollHeight;
  };
  const timeline = el('div', {id: 'timeline'});
  const v = {
    async render() {
      await v.refresh();
      if (!followed) await v.readLogs(); // a followed job's stream sends its lines from the first
      return box;
    },
    async refresh() {
      const [j, tl] = await Promise.all([rpc('job.load', {context: ctx, key: key}),
        rpc('job.timeline', {context: ctx, key: key}).catch(() => null)]);
      fill(timeline, tl ? timelineCard(tl) : null);
      fill(box, jobDetail(ctx, j, logs, timeline, tl));
      // A job sent to another agent is read there (job.logs) at each
      // refresh; one of this agent's is followed line by line.
      const away = j.runner && H.info && j.runner !== H.info.peer_id;
      if (away && rendered) await v.readLogs();
      if (!ended(j.status) && !followed && !away) v.follow();
      rendered = true;
    },
    async readLogs() {
      for (let i = 0; i < 50; i++) {
        const l = await rpc('job.logs', {context: ctx, key: key, from: next, meta: true});
        addLines(l.lines, l.entries);
        next = l.next;
        if (l.note) logs.append(el('span', {class: 'meta'}, '(' + l.note + ')\n'));
        if (!l.more) break;
      }
    },
    // follow streams the job's lines as it runs (/events/job), from the
    // first line.
    follow() {
      followed = true;
      const es = follow('/events/job?context=' + ctx + '&key=' + encodeURIComponent(key));
      es.addEventListener('log', (e) => { const d = JSON.parse(e.data); addLines(d.lines, d.entries); });
      es.addEventListener('end', () => { es.close(); v.refresh(); });
    },
  };
  return v;
};

// logLine shows a log entry {ts, stream, line}: stderr in red with an
// "E|" mark, the agent's own notes in another colour, the time first
// (muted) when known.
function logLine(e) {
  const cls = {stderr: 'err', agent: 'meta'}[e.stream] || 'out';
  const ts = e.ts ? el('span', {class: 'ts', title: e.ts}, e.ts.slice(11, 23) + ' ') : null;
  return el('span', {class: 'line ' + cls, 'data-stream': e.stream || ''}, ts,
    e.stream === 'stderr' ? el('span', {class: 'mark'}, 'E| ') : null, e.line + '\n');
}

// timelineCard shows a job's attempts (a table) and its moves (a list),
// from job.timeline.
function timelineCard(tl) {
  if (!tl.timeline.length) return card('Timeline', el('p', {class: 'muted'}, 'no moves recorded (a job written straight into Redis)'));
  const ms = (x) => x ? new Date(x).toLocaleTimeString(undefined, {hour12: false}) + '.' + String(x % 1000).padStart(3, '0') : '—';
  const took = (a) => a.ended_ms && a.started_ms ? durMS(a.duration_ms || 0) : '—';
  const waited = (a) => a.started_ms && a.queued_ms ? durMS(a.started_ms - a.queued_ms) : '—';
  return el('div', {},
    card('Attempts', table(['#', 'STATUS', 'QUEUED', 'STARTED', 'ENDED', ['WAITED', 'queued → started'], ['RAN', 'started → ended'],
      'WHERE', 'ERROR'], tl.attempts.map(a =>
      el('tr', {'data-attempt': a.attempt}, el('td', {}, String(a.attempt)), el('td', {}, badge(a.status)), el('td', {}, ms(a.queued_ms)),
        el('td', {}, ms(a.started_ms)), el('td', {}, ms(a.ended_ms)), el('td', {'data-waited': ''}, waited(a)),
        el('td', {'data-ran': ''}, took(a)),
        el('td', {class: 'nowrap', title: a.runner || a.sent_to || ''}, a.runner ? short(a.runner) : a.sent_to ? 'sent to ' + short(a.sent_to) : '—'),
        el('td', {class: 'muted text'}, a.error || ''))))),
    card('Timeline', el('ol', {class: 'timeline'}, tl.timeline.map(e => el('li', {'data-event': e.event},
      el('span', {class: 'ts', title: e.at}, ms(e.at_ms)), ' ', badge(e.event), ' attempt ' + Math.max(e.attempt || 0, 1),
      e.detail ? el('span', {class: 'muted'}, ' · ' + e.detail) : null)))));
}

// jobTimes are the job page's durations: how long its last attempt
// waited (queued → started) and ran (started → ended), from job.timeline
// (tl, null when it could not be read), and the total from creation.
function jobTimes(j, tl) {
  const now = Date.now();
  const total = ['total', (ended(j.status) ? dur(j.updated_at - j.created_at) : dur(Math.round(now / 1000) - j.created_at) + ' so far') +
    ' (created → ' + (ended(j.status) ? 'ended' : 'now') + ', the wait included)'];
  const a = tl && tl.attempts && tl.attempts.length ? tl.attempts[tl.attempts.length - 1] : null;
  if (!a) return [total];
  const of = tl.attempts.length > 1 ? ' (attempt ' + a.attempt + ')' : '';
  const queued = a.queued_ms || j.created_at * 1000;
  const waited = a.started_ms ? durMS(a.started_ms - queued) : 'waiting for ' + durMS(now - queued);
  const ran = a.ended_ms && a.started_ms ? durMS(a.ended_ms - a.started_ms)
    : a.started_ms && !ended(j.status) ? 'running for ' + durMS(now - a.started_ms) : '—';
  return [['waited' + of, el('span', {id: 'job-waited', title: 'queued → started'}, waited)],
    ['ran' + of, el('span', {id: 'job-ran', title: 'started → ended'}, ran)], total];
}

// jobFiles lists a job's files (its outputs), each with a download: the
// agent brings them here from wherever the job ran (job.fetch), then the
// browser fetches GET /files/… on the session.
function jobFiles(ctx, j) {
  const url = f => '/files/' + ctx + '/' + encodeURIComponent(j.key) + '/' + f.sha256;
  const get = f => el('button', {class: 'file-get', onclick: () => act('fetch ' + f.path, 'job.fetch', {context: ctx, key: j.key})
    .then(res => { if (!res) return; const a = el('a', {href: url(f), download: f.path.split('/').pop()}); document.body.append(a); a.click(); a.remove(); })},
    'Download');
  return card('Files' + (j.ran_on ? ' (held by ' + j.ran_on.slice(0, 12) + '…)' : ''), table(['path', 'size', 'mode', 'sha256', ''],
    j.files.map(f => el('tr', {}, el('td', {}, el('code', {}, f.path)), el('td', {}, String(f.size)),
      el('td', {}, f.mode.toString(8).padStart(4, '0')), el('td', {}, el('code', {title: f.sha256}, f.sha256.slice(0, 16) + '…')),
      el('td', {}, get(f))))));
}

function jobDetail(ctx, j, logs, timeline, tl) {
  const env = Object.entries(j.env_vars || {});
  const result = Object.entries(j.result || {});
  return el('div', {},
    el('h2', {}, 'Job ', el('code', {}, j.key), ' ', badge(j.state), ' ',
      ended(j.status) ? null : confirmable('stop ' + ctx + ' ' + j.key, 'Really stop ' + j.key + '?', {class: 'danger', id: 'job-stop'}, 'Stop',
        () => act('stop ' + j.key, 'job.stop', {context: ctx, key: j.key}).then(() => H.view.refresh())),
      j.status === 'error' && !j.flow_id ? el('button', {id: 'job-retry',
        onclick: () => act('retry ' + j.key, 'job.retry', {context: ctx, key: j.key}).then(() => route())}, 'Retry') : null),
    el('div', {class: 'grid'},
      card('Job', kv([['name', j.name || '—'], ['type', j.script_type], ['status', j.status],
        ['attempt', j.attempt + ' of ' + (j.retries + 1)], ['runner', el('code', {}, j.runner || '—')],
        ['flow', j.flow_id ? el('a', {href: '#/flow/' + ctx + '/' + j.flow_id}, String(j.flow_id)) : '—'],
        ['created', when(j.created_at)], ['updated', when(j.updated_at)],
        ...jobTimes(j, tl),
        ['timeout', j.timeout ? j.timeout + 's' : 'none'], j.error ? ['error', el('span', {class: 'muted text'}, j.error)] : null,
        j.unreachable_since ? ['unreachable since', when(j.unreachable_since)] : null,
        j.trace_id ? ['trace id', el('code', {id: 'trace-id'}, j.trace_id)] : null])),
      card('Result', result.length ? kv(result, 'text') : el('p', {class: 'muted'}, 'none')),
      card('Env', env.length ? kv(env.map(([k, val]) => [k, envValue(k, val)]))
        : el('p', {class: 'muted'}, 'none'))),
    j.files && j.files.length ? jobFiles(ctx, j) : null,
    timeline,
    card('Script', el('pre', {}, j.script)),
    card('Logs', el('p', {class: 'muted'}, ended(j.status) ? 'ended' : 'following the running job…'), logs));
}

Views.dead = () => {
  const box = el('div', {id: 'dead'});
  const refused = {}; // key → why deadletter.retry refused it, kept across the view's reloads
  const retry = async (key) => {
    try {
      await rpc('deadletter.retry', {context: H.ctx, key: key});
      delete refused[key];
      toast('retry ' + key + ': done');
    } catch (e) {
      refused[key] = e.message;
      toast('retry ' + key + ': ' + e.message, true);
    }
    await v.refresh();
  };
  const del = (key) => act('delete ' + key, 'deadletter.delete', {context: H.ctx, key: key}).then(() => v.refresh());
  const v = {
    async render() { await v.refresh(); return box; },
    async refresh() {
      const ds = await rpc('deadletter.list', {context: H.ctx, limit: 200});
      fill(box, el('h2', {}, 'Dead letters · context ' + H.ctx),
        el('p', {class: 'note'}, 'Entries that could not be processed, newest first. Class: invalid (could not be decoded ' +
          'or validated), unusable (a queue entry naming no job), failures (quarantined after failing in a row). ' +
          'Retry (deadletter.retry) queues a job again as a new attempt, or puts a message back on its list once it ' +
          'decodes, and removes its entries; Delete removes the entries for that key (deadletter.delete), not the job.'),
        ds.length ? table(['WHEN', 'KEY', 'CLASS', 'QUEUE', 'REASON', 'RUNNER', ''], ds.map(d => deadRow(d, refused[d.key], retry, del)))
          : el('p', {class: 'muted'}, 'no dead letters'));
    },
  };
  return v;
};

// deadRow is one dead letter; refusal is why its last Retry was refused.
function deadRow(d, refusal, retry, del) {
  const retriable = d.key.startsWith('job:') || d.key.startsWith('message:');
  return el('tr', {'data-key': d.key, 'data-class': d.class || 'invalid'},
    el('td', {}, when(d.at)), el('td', {}, d.key.startsWith('job:') ? el('a', {href: jobHref(H.ctx, d.key)}, d.key) : d.key),
    el('td', {class: 'class'}, badge(d.class || 'invalid')), el('td', {}, d.queue || ''),
    el('td', {class: 'reason'}, d.reason, refusal ? el('div', {class: 'retry-error'}, 'retry refused: ' + refusal) : null),
    el('td', {}, short(d.runner)),
    el('td', {class: 'actions'}, retriable ? el('button', {class: 'retry', onclick: () => retry(d.key)}, 'Retry') : '',
      ' ', confirmable('delete ' + H.ctx + ' ' + d.key, 'Really delete the dead letters of ' + d.key + '?', {class: 'delete danger'}, 'Delete',
        () => del(d.key))));
}

Views.contexts = () => {
  const box = el('div', {id: 'contexts'});
  const v = {
    async render() { await v.refresh(); return box; },
    async refresh() {
      const [cs, actors] = await Promise.all([rpc('context.list'), rpc('actor.list')]);
      const peerOf = Object.fromEntries(actors.map(a => [a.id, a]));
      fill(box, el('h2', {}, 'Contexts'), cs.map(c => contextCard(c, peerOf)));
    },
  };
  return v;
};

function contextCard(c, peerOf) {
  const member = (id, role) => {
    const a = peerOf[id] || {};
    return el('li', {'data-actor': id, 'data-role': role}, 'actor ' + id + ' ', el('code', {title: a.pubkey || ''}, short(a.pubkey)),
      a.self ? ' (this agent)' : '', ' ',
      confirmable('revoke ' + c.id + ' ' + role + ' ' + id, 'Really revoke ' + role + ' from actor ' + id + '?',
        {class: 'link', title: 'revoke'}, '✕', () => act('revoke ' + role, 'context.revoke',
          {id: c.id, actor: String(id), role: role}).then(() => H.view.refresh())));
  };
  const actor = el('input', {name: 'actor', placeholder: 'peer ID or actor id', size: 40});
  const role = el('select', {name: 'role'}, ['reader', 'executor', 'admin'].map(x => el('option', {value: x}, x)));
  return card('context ' + c.id + (c.name ? ' · ' + c.name : ''),
    el('div', {class: 'grid'}, [['admins', 'admin'], ['executors', 'executor'], ['readers', 'reader']].map(([k, r]) =>
      el('div', {}, el('b', {}, k), el('ul', {}, c[k].length ? c[k].map(id => member(id, r)) : el('li', {class: 'muted'}, 'none'))))),
    el('form', {class: 'filters', 'data-grant': c.id, onsubmit: (e) => {
      e.preventDefault();
      act('grant ' + role.value, 'context.grant', {id: c.id, actor: actor.value.trim(), role: role.value}).then(() => H.view.refresh());
    }}, el('label', {}, 'actor', actor), el('label', {}, 'role', role), el('button', {type: 'submit'}, 'Grant')));
}
