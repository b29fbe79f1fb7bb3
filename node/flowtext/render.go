// Package flowtext draws a flow's status as text for people: the CLI's
// `flow status`/`watch` and the demo print it; scripts read --json instead.
package flowtext

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

var symbols = map[model.NodeState]string{
	model.NodeCompleted: "✓", model.NodeFailed: "✗", model.NodeRunning: "●", model.NodeDispatched: "●",
	model.NodePending: "○", model.NodeReady: "○", model.NodeCancelled: "⊘", model.NodeUnknown: "?",
}

// Render draws a flow as text: a header with progress, then one line per
// job as a tree — each job under the need that sits deepest (so the indent
// is its depth), with "needs: a, b" where several jobs feed it — then the
// error and, once ended, the result.
//
//	flow 7 nightly (context 1): started — 1/4 done, 1 running, 2 waiting
//	✓ fetch           completed   sh  self  1s
//	├─ ● build        running     sh  self  3s
//	│  └─ ○ publish   pending     sh        needs: build, test
//	└─ ✓ test         completed   sh  self  2s
func Render(st *wire.FlowState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "flow %d %s (context %d): %s — %s\n", st.ID, st.Name, st.ContextID, st.Status, ProgressLine(st))
	rows := treeRows(st.Jobs)
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r.head))
	}
	for _, r := range rows {
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(r.head))
		fmt.Fprintf(&b, "%s%s  %s\n", r.head, pad, details(r.job))
	}
	if st.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", st.Error)
	}
	writeCompensation(&b, st)
	if st.Terminal() && len(st.Result) > 0 {
		b.WriteString("result:\n")
		writeResult(&b, st.Result)
	}
	if st.TraceID != "" { // the flow's jobs share it; their log lines carry it
		fmt.Fprintf(&b, "trace id: %s\n", st.TraceID)
	}
	return b.String()
}

// ProgressLine is "3/5 done (1 failed), 1 running, 1 waiting".
func ProgressLine(st *wire.FlowState) string {
	p := st.Progress
	s := fmt.Sprintf("%d/%d done", p.Done, p.Total)
	var bad []string
	if p.Failed > 0 {
		bad = append(bad, fmt.Sprintf("%d failed", p.Failed))
	}
	if p.Cancelled > 0 {
		bad = append(bad, fmt.Sprintf("%d cancelled", p.Cancelled))
	}
	if len(bad) > 0 {
		s += " (" + strings.Join(bad, ", ") + ")"
	}
	if n := p.Running + p.Dispatched; n > 0 {
		s += fmt.Sprintf(", %d running", n)
	}
	if n := p.Pending + p.Ready; n > 0 {
		s += fmt.Sprintf(", %d waiting", n)
	}
	return s
}

// row is one drawn line: tree prefix, symbol and name; then the job.
type row struct {
	head string
	job  *wire.FlowJobState
}

// treeRows lays the DAG out as a tree over each job's deepest need.
func treeRows(jobs []wire.FlowJobState) []row {
	idx := make(map[string]int, len(jobs))
	for i, j := range jobs {
		idx[j.Name] = i
	}
	children := map[string][]int{}
	var roots []int
	for i, j := range jobs {
		parent := -1
		for _, n := range j.Needs {
			if k, ok := idx[n]; ok && (parent < 0 || jobs[k].Depth > jobs[parent].Depth) {
				parent = k
			}
		}
		if parent < 0 {
			roots = append(roots, i)
			continue
		}
		children[jobs[parent].Name] = append(children[jobs[parent].Name], i)
	}
	var out []row
	var walk func(i int, indent, branch string)
	walk = func(i int, indent, branch string) {
		j := &jobs[i]
		out = append(out, row{head: indent + branch + symbols[j.State] + " " + j.Name, job: j})
		kids := children[j.Name]
		for n, k := range kids {
			last := n == len(kids)-1
			next := indent
			if branch != "" {
				next += map[bool]string{true: "   ", false: "│  "}[branch == "└─ "]
			}
			walk(k, next, map[bool]string{true: "└─ ", false: "├─ "}[last])
		}
	}
	for _, r := range roots {
		walk(r, "", "")
	}
	return out
}

// details is the part of a job's line after its name.
func details(j *wire.FlowJobState) string {
	parts := []string{fmt.Sprintf("%-10s", j.State)}
	if j.Key != "" { // what job status and job logs take
		parts = append(parts, j.Key)
	}
	parts = append(parts, j.Type)
	if j.Runner != "" {
		parts = append(parts, shortPeer(j.Runner))
	}
	if j.Attempt > 1 {
		parts = append(parts, fmt.Sprintf("attempt %d", j.Attempt))
	}
	if j.Duration > 0 || j.State.Terminal() && j.Attempt > 0 {
		parts = append(parts, (time.Duration(j.Duration) * time.Second).String())
	}
	if len(j.Needs) > 1 {
		parts = append(parts, "needs: "+strings.Join(j.Needs, ", "))
	}
	if j.State == model.NodeFailed && j.ContinueOnError {
		parts = append(parts, "(continue_on_error)")
	}
	if j.Error != "" && j.State != model.NodeCompleted {
		parts = append(parts, "— "+oneLine(j.Error, 80))
	}
	return strings.TrimRight(strings.Join(parts, "  "), " ")
}

// shortPeer abbreviates a peer ID: 12D3KooW…abcd.
func shortPeer(p string) string {
	if len(p) > 16 && !strings.HasPrefix(p, "runner:") {
		return p[:8] + "…" + p[len(p)-4:]
	}
	return p
}

func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

func writeResult(b *strings.Builder, res map[string]string) {
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "  %s = %s\n", k, oneLine(res[k], 100))
	}
}
