package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// layoutJS defines the page's measures for TestUIBrowserLayoutAt800: what
// sticks out of the page, of a card, and words broken across lines.
const layoutJS = `(() => {
  const inside = (e, box) => {
    const r = e.getBoundingClientRect(), b = box.getBoundingClientRect();
    return r.left >= b.left - 0.5 && r.right <= b.right + 0.5;
  };
  window.layout = {
    // pageFits: nothing widens the page past the window.
    pageFits: () => document.documentElement.scrollWidth <= innerWidth,
    // outOfCard: the elements matching sel that reach past their card.
    outOfCard: (sel) => [...document.querySelectorAll(sel)].filter(e => !inside(e, e.closest('.card'))).length,
    inside: inside,
    // brokenWords: the words of ordinary text (not code) under sel that
    // are split across two lines.
    brokenWords: (sel) => {
      const out = [];
      for (const root of document.querySelectorAll(sel)) {
        const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode(); n; n = w.nextNode()) {
          if (n.parentElement.closest('code, pre')) continue;
          for (const m of n.data.matchAll(/[A-Za-z]{2,}/g)) {
            const r = document.createRange();
            r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
            const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
            if (tops.size > 1) out.push(m[0]);
          }
        }
      }
      return out.join(' ');
    },
  };
  return true;
})()`

// layoutFlow is a DAG of eight jobs in four levels: wider than a card at
// 800 px when drawn at its own size.
const layoutFlow = `name: layout
context: 1
jobs:
  fetch: {type: sh, script: 'echo fetched'}
  parse-orders: {type: sh, needs: fetch, script: 'echo a'}
  parse-users: {type: sh, needs: fetch, script: 'echo b'}
  parse-stock: {type: sh, needs: fetch, script: 'echo c'}
  join-orders: {type: sh, needs: [parse-orders, parse-users], script: 'echo d'}
  join-stock: {type: sh, needs: [parse-orders, parse-stock], script: 'echo e'}
  totals: {type: sh, needs: [join-orders], script: 'echo f'}
  report: {type: sh, needs: [join-stock, totals], script: 'echo report'}
`

// The dashboard at 800 px wide: no view widens the page, the overview's
// chart legend stays in its card, a job's multi-line stdout shows as
// lines and its words do not break mid-word, the flow's DAG of eight jobs
// fits its card, and the job page says how long the job waited and ran.
func TestUIBrowserLayoutAt800(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	a.hy(t, "job", "run", "--context", "1", "--type", "sh", "--wait", "--script", "echo hello")
	_, _, _ = hyTry("job", "run", "--context", "1", "--type", "sh", "--wait", "--script", "echo bad >&2; exit 3", "--data-dir", a.dir)
	var j jobOut
	decode(t, a.hy(t, "job", "run", "--context", "1", "--type", "sh", "--wait", "--json", "--script",
		`printf 'line one\nline two\nline three\n'; echo "summary=the quick brown fox jumps over the lazy dog and keeps on running across the whole card until the line wraps twice over" >> "$HYPHAE_RESULT"`), &j)
	var f struct {
		ID uint64 `json:"id"`
	}
	decode(t, a.hy(t, "flow", "run", a.flowFile(t, layoutFlow), "--wait", "--json"), &f)
	login(t, a, b)
	b.do("an 800 px viewport", chromedp.EmulateViewport(800, 900))
	b.eval(layoutJS)
	check := func(view, expr string) {
		t.Helper()
		if got := b.eval(expr); got != "true" {
			t.Errorf("%s at 800 px: %s is %s", view, expr, got)
		}
	}

	b.until("the chart on the overview", `!!document.querySelector('#rate-chart')`)
	check("overview", `layout.pageFits()`)
	// The legend: the words naming the bars, wherever they are drawn,
	// inside the chart's card (and inside the chart when drawn in it).
	check("overview", `(() => { const c = document.querySelector('#rate-chart').closest('.card'), svg = c.querySelector('svg');
		const parts = [...c.querySelectorAll('.legend, svg text')].filter(e => /created|finished|failed/.test(e.textContent));
		return parts.length > 0 && parts.every(e => layout.inside(e, c) && (!svg.contains(e) || layout.inside(e, svg))); })()`)
	check("overview", `layout.outOfCard('.legend') === 0`)

	b.visit("#/jobs", `!!document.querySelector('#jobs-list tr[data-key]')`)
	check("jobs", `layout.pageFits()`)

	b.visit("#/job/1/"+j.Key, `document.querySelector('#logs')?.textContent.includes('line three')`)
	check("job", `layout.pageFits()`)
	check("job", `document.querySelector('#logs').innerText.split('\n').filter(l => /line (one|two|three)/.test(l)).length === 3`)
	// The result's stdout, three lines, shows as three lines.
	check("job", `(() => { const dd = [...document.querySelectorAll('#job dt')].find(d => d.textContent === 'stdout')?.nextElementSibling;
		return !!dd && dd.innerText.trim().split('\n').length === 3; })()`)
	if got := b.eval(`layout.brokenWords('#job .kv dd')`); got != "" {
		t.Errorf("job at 800 px: words broken across lines: %q", got)
	}
	check("job", `!!document.querySelector('#job-waited') && !!document.querySelector('#job-ran')`)
	if got := b.eval(`[...document.querySelectorAll('#job dt')].map(d => d.textContent).filter(t => /^(waited|ran|total)/.test(t)).join()`); got != "waited,ran,total" {
		t.Errorf("the job page's durations are labelled %q; want waited,ran,total", got)
	}

	b.visit(fmt.Sprintf("#/flow/1/%d", f.ID), `document.querySelectorAll('#dag g.node').length === 8`)
	check("flow", `layout.pageFits()`)
	check("flow", `layout.inside(document.querySelector('#dag'), document.querySelector('#dag').closest('.card'))`)
	check("flow", `layout.outOfCard('.card > *') === 0`)
}
