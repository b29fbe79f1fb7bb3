package scheduler_test

import (
	"encoding/json"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
)

// networkFlow cuts the network of its jobs but b's; c's compensation
// keeps c's setting, d's says its own.
const networkFlow = `network: none
jobs:
  a: {type: sh, script: 'exit 3'}
  b: {type: sh, script: x, network: host}
  c: {type: sh, script: x, compensate: {type: sh, script: y}}
  d: {type: sh, script: x, network: host, compensate: {type: sh, script: y, network: none}}
`

// What a flow file says of the network reaches each job's hash, where the
// runner reads it (and the bridge carries it to a remote runner), and the
// compensations' specs; a rerun keeps it.
func TestNetworkReachesTheJobHash(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	want := map[string]struct{ net, comp string }{
		"a": {"none", ""}, "b": {"host", ""}, "c": {"none", "none"}, "d": {"host", "none"}}
	check := func(what string, st *scheduler.Status) {
		t.Helper()
		for name, w := range want {
			h, err := e.srv.Client(t, int(ctxID)).HGetAll(e.ctx, job(t, st, name).Key).Result()
			if err != nil || h[model.ExtraNetwork] != w.net {
				t.Errorf("%s: job %s: network %q (%v), want %q", what, name, h[model.ExtraNetwork], err, w.net)
			}
			var cs struct {
				Network string `json:"network"`
			}
			if raw := h["compensate"]; raw != "" {
				if err := json.Unmarshal([]byte(raw), &cs); err != nil {
					t.Fatalf("%s: job %s: compensate %q: %v", what, name, raw, err)
				}
			}
			if cs.Network != w.comp {
				t.Errorf("%s: job %s: compensation network %q, want %q", what, name, cs.Network, w.comp)
			}
		}
	}
	old := e.wait(t, s, e.run(t, s, networkFlow).ID)
	wantFlow(t, old, model.FlowError)
	check("first run", old)
	fl, err := s.Rerun(e.ctx, ctxID, old.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(e.ctx, ctxID, fl.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("rerun", st)
}
