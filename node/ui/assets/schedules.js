'use strict';
// Schedules: a context's flow schedules (flow.schedule.list) with pause,
// resume and remove. Installing one stays with the CLI (it reads a flow
// file): hyphae flow schedule add FILE.

Views.schedules = () => {
  const box = el('div', {id: 'schedules'});
  const v = {
    async render() { await v.refresh(); return box; },
    async refresh() {
      const ss = await rpc('flow.schedule.list', {context: H.ctx});
      fill(box, el('h2', {}, 'Schedules · context ' + H.ctx),
        el('p', {class: 'note'}, 'Flows this agent starts at each tick. Add one with hyphae flow schedule add FILE.'),
        ss.length ? table(['NAME', 'CRON', 'STATE', 'NEXT', 'LAST RUN', 'RUNS', 'SKIPPED', ''], ss.map(s => scheduleRow(s, v)))
          : el('p', {class: 'muted'}, 'no schedules in this context'));
    },
  };
  return v;
};

function scheduleRow(s, v) {
  const ref = {context: s.context, name: s.name};
  const then = method => () => act(method.split('.').pop() + ' ' + s.name, method, ref).then(() => v.refresh());
  return el('tr', {'data-schedule': s.name, 'data-paused': String(s.paused)},
    el('td', {}, s.name), el('td', {}, el('code', {}, s.cron + (s.timezone ? ' (' + s.timezone + ')' : ''))),
    el('td', {}, badge(s.paused ? 'paused' : 'active')),
    el('td', {}, s.next_tick ? when(s.next_tick) : '—'),
    el('td', {}, s.last_flow ? el('a', {href: '#/flow/' + s.context + '/' + s.last_flow}, String(s.last_flow)) : '—'),
    el('td', {}, String(s.runs)), el('td', {}, String(s.skipped)),
    el('td', {}, s.paused ? el('button', {class: 'resume', onclick: then('flow.schedule.resume')}, 'Resume')
      : el('button', {class: 'pause', onclick: then('flow.schedule.pause')}, 'Pause'),
    ' ', confirmable('remove schedule ' + s.context + ' ' + s.name, 'Really remove schedule ' + s.name + '?',
      {class: 'remove danger'}, 'Remove', then('flow.schedule.remove'))));
}
