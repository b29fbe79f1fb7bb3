package demo

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/flowtext"
)

// flowYAML is bob's flow; %s are alice's and carol's peer IDs. fetch's
// items.txt goes from alice to carol as a file (outputs:, in/fetch/).
const flowYAML = `name: cross-tenant-demo
context: 1
env: {REPORT_TITLE: "inventory"}
jobs:
  fetch:
    type: sh
    runner: %[1]s
    outputs: [items.txt]
    script: |
      echo "fetching on $(uname -n) for caller $HYPHAE_CALLER_ID"
      echo 42 > items.txt
      echo "items=42" >> "$HYPHAE_RESULT"
  count:
    type: sh
    runner: %[2]s
    needs: [fetch]
    script: |
      echo "doubling $HYPHAE_IN_FETCH_ITEMS"
      echo "doubled=$((HYPHAE_IN_FETCH_ITEMS * 2))" >> "$HYPHAE_RESULT"
  checksum:
    type: sh
    runner: %[2]s
    needs: [fetch]
    script: |
      echo "sum=$(cksum < "$HYPHAE_IN_FETCH_DIR/items.txt" | cut -d' ' -f1)" >> "$HYPHAE_RESULT"
  report:
    type: sh
    runner: %[1]s
    needs: [count, checksum]
    script: |
      echo "report=$REPORT_TITLE: $HYPHAE_IN_COUNT_DOUBLED (checksum $HYPHAE_IN_CHECKSUM_SUM)" >> "$HYPHAE_RESULT"
`

// play runs the story once the agents are up.
func (s *story) play(ctx context.Context, ag []*agent) error {
	alice, bob, carol := ag[0], ag[1], ag[2]
	if err := s.waitMesh(ctx, ag); err != nil {
		return err
	}
	for _, owner := range []*agent{alice, carol} {
		if err := s.grant(ctx, owner, bob); err != nil {
			return err
		}
	}
	if err := bob.c.Call(ctx, "context.create", map[string]any{"id": 1, "name": "bob-flows"}, nil); err != nil {
		return fmt.Errorf("bob: context.create: %w", err)
	}
	s.say("bob creates his own context 1 and runs a flow there whose jobs are pinned to alice and carol:\n")
	var fv wire.FlowView
	params := map[string]any{"file_content": fmt.Sprintf(flowYAML, alice.info.PeerID, carol.info.PeerID),
		"file_name": "demo.yaml", "start": true}
	if err := bob.c.Call(ctx, "flow.create", params, &fv); err != nil {
		return fmt.Errorf("bob: flow.create: %w", err)
	}
	final, err := s.follow(ctx, bob, fv.ID)
	if err != nil {
		return err
	}
	s.results(final, ag)
	if string(final.Status) != "finished" {
		return fmt.Errorf("the flow ended %s: %s", final.Status, final.Error)
	}
	s.wire(final, ag)
	s.file(ctx, bob, final)
	return nil
}

// file says how fetch's items.txt went from alice to carol.
func (s *story) file(ctx context.Context, bob *agent, f *wire.FlowView) {
	for _, j := range f.Jobs {
		var v wire.JobFilesView
		if j.Name != "fetch" || bob.c.Call(ctx, "job.files", map[string]any{"context": 1, "key": j.Key}, &v) != nil || len(v.Files) == 0 {
			continue
		}
		s.say("  items.txt  alice → carol, a file (fetch's outputs:, in/fetch/ for count and checksum): %d bytes, sha256 %s…,\n"+
			"                      on /hyphae/files/1.0.0, checked chunk by chunk; alice gave it to carol on a grant bob signed.",
			v.Files[0].Size, v.Files[0].SHA256[:16])
	}
}

// waitMesh waits until every agent sees the other two up.
func (s *story) waitMesh(ctx context.Context, ag []*agent) error {
	s.say("\nbob and carol know only alice's address; presence spreads the rest.")
	t0 := time.Now()
	for {
		ok := true
		for _, a := range ag {
			var ps []wire.PeerView
			if err := a.c.Call(ctx, "peer.list", nil, &ps); err != nil {
				return err
			}
			if countUp(ps) < len(ag)-1 {
				ok = false
			}
		}
		if ok {
			s.say("all three see each other (%v).\n", time.Since(t0).Round(10*time.Millisecond))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("agents did not find each other: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func countUp(ps []wire.PeerView) int {
	n := 0
	for _, p := range ps {
		if p.State == "up" {
			n++
		}
	}
	return n
}

// grant: owner creates context 1 and lets bob execute there.
func (s *story) grant(ctx context.Context, owner, bob *agent) error {
	if err := owner.c.Call(ctx, "context.create", map[string]any{"id": 1, "name": owner.name + "-lab"}, nil); err != nil {
		return fmt.Errorf("%s: context.create: %w", owner.name, err)
	}
	p := map[string]any{"id": 1, "actor": bob.info.PeerID, "role": "executor"}
	if err := owner.c.Call(ctx, "context.grant", p, nil); err != nil {
		return fmt.Errorf("%s: context.grant: %w", owner.name, err)
	}
	s.say("%s creates context 1 and grants bob (%s…) the executor role.", owner.name, short(bob.info.PeerID))
	return nil
}

// follow prints the DAG each time the flow changes, until it ends.
func (s *story) follow(ctx context.Context, bob *agent, id uint64) (*wire.FlowView, error) {
	var first wire.FlowView
	if err := bob.c.Call(ctx, "flow.status", map[string]any{"context": 1, "id": id}, &first); err != nil {
		return nil, fmt.Errorf("bob: flow.status: %w", err)
	}
	after := first.Version
	s.say("  [%5.2fs] %s", time.Since(s.start).Seconds(), flowtext.ProgressLine(&first.FlowState))
	for {
		var fv wire.FlowView
		p := map[string]any{"context": 1, "id": id, "after": after, "timeout": 5}
		if err := bob.c.Call(ctx, "flow.wait", p, &fv); err != nil {
			return nil, fmt.Errorf("bob: flow.wait: %w", err)
		}
		if fv.Version != after {
			s.say("  [%5.2fs] %s", time.Since(s.start).Seconds(), flowtext.ProgressLine(&fv.FlowState))
			after = fv.Version
		}
		if fv.Terminal() {
			s.say("\n%s", indent(s.names(treeOnly(flowtext.Render(&fv.FlowState)))))
			return &fv, nil
		}
	}
}

func (s *story) results(fv *wire.FlowView, ag []*agent) {
	s.say("flow %q %s. Results (the flow's result map, <job>.<key>):", fv.Name, fv.Status)
	keys := make([]string, 0, len(fv.Result))
	for k := range fv.Result {
		if !strings.HasSuffix(k, ".stdout") && !strings.HasSuffix(k, ".exit_code") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.say("  %-18s = %s", k, fv.Result[k])
	}
}

// wire explains what crossed the wire for each job.
func (s *story) wire(fv *wire.FlowView, ag []*agent) {
	names := map[string]*agent{}
	for _, a := range ag {
		names[a.info.PeerID] = a
	}
	bob := ag[1]
	s.say("\nWhat crossed the wire:")
	for _, j := range fv.Jobs {
		r := names[j.Runner]
		if r == nil {
			continue
		}
		s.say("  %-9s bob → %-5s job, signed by bob's ed25519 key (%s…), age-encrypted to %s (%s…);", j.Name, r.name,
			short(bob.info.PeerID), r.name, short(r.info.AgeRecip))
		s.say("  %-9s           %s checked bob holds executor in her context 1, ran it, and sent the result back signed by %s, encrypted to bob.", "", r.name, r.name)
	}
	for _, a := range ag {
		st := a.n.BusStats()
		fs := a.n.FrameStats()
		s.say("  %-6s sent %s (%d on a direct stream, %d through gossipsub); received %s; rejected %s", a.name, counts(st.Sent),
			fs.Direct, fs.Published, counts(st.Received), counts(st.Rejected))
	}
	s.say("Every message carried a unique id (replays are refused) and a timestamp (skew-checked), and is acknowledged: a quick job by its result,")
	s.say("a result by an ack riding on the next message to its sender (or on its own after 100 ms, or when the agent stops); an unacknowledged one is resent.")
}

// treeOnly drops the result section of a rendered flow (shown apart).
func treeOnly(r string) string {
	if i := strings.Index(r, "\nresult:"); i >= 0 {
		return r[:i]
	}
	return r
}

// names replaces abbreviated peer IDs with the agents' names.
func (s *story) names(r string) string {
	for _, a := range s.agents {
		p := a.info.PeerID
		if len(p) > 12 {
			r = strings.ReplaceAll(r, p[:8]+"…"+p[len(p)-4:], a.name)
		}
	}
	return r
}

func short(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// keep leaves the agents running and says how to talk to each.
// keep leaves the agents running until ctx ends, saying where their data
// is and what becomes of it: a temp dir is removed when they stop.
func (s *story) keep(ctx context.Context, ag []*agent, temp bool) {
	s.say("\nThe agents keep running (Ctrl-C to stop). Their data is in %s; talk to each through its data dir:", s.o.Dir)
	for _, a := range ag {
		s.say("  %-6s hyphae --data-dir %s peers", a.name, a.dir)
	}
	s.say("  e.g.   hyphae --data-dir %s flow list --context 1", ag[1].dir)
	s.dashboard(ctx, ag[0])
	if temp {
		s.say("Ctrl-C stops them and removes %s (hyphae demo --keep --dir DIR keeps their data).", s.o.Dir)
	}
	<-ctx.Done()
	if temp {
		s.say("\nStopping the agents and removing %s.", s.o.Dir)
	} else {
		s.say("\nStopping the agents; their data stays in %s.", s.o.Dir)
	}
}

// dashboard prints a one-time login URL of a's web dashboard, on the TCP
// API --keep gave it (what `hyphae ui` prints), and how to get another.
func (s *story) dashboard(ctx context.Context, a *agent) {
	var v wire.LoginView
	if err := a.c.Call(ctx, "ui.login_token", nil, &v); err != nil || v.URL == "" {
		s.say("No dashboard for %s: %v%s", a.name, err, v.Note)
		return
	}
	s.say("\n%s's dashboard: open this URL in a browser on this machine (it logs in once, until %s):\n  %s",
		a.name, time.Unix(v.ExpiresAt, 0).Format(time.TimeOnly), v.URL)
	s.say("  another one: hyphae --data-dir %s ui", a.dir)
}

func counts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
