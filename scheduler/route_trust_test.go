package scheduler_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// A peer that PickRunner offers for a job the flow leaves open is used
// only when a runner record of the flow's context names it (for the job's
// type, when the record lists types): otherwise the message goes with no
// dst, for the bridge to route among registered runners.
func TestRemoteDispatchPicksOnlyRegisteredRunners(t *testing.T) {
	e := newEnv(t, 0)
	if err := e.st.Registry.SaveRunner(e.ctx, ctxID, &model.Runner{Pubkey: peerA, ScriptTypes: []string{"gpu"}}); err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	cfg.PickRunner = func(typ string, _ []string) string {
		if typ == "gpu" {
			return peerA // registered for gpu
		}
		return peerB // a peer that only announced itself
	}
	s := e.sched(t, cfg)
	e.run(t, s, `
jobs:
  train: {type: gpu, script: 'train'}
  other: {type: rust, script: 'cargo run'}
  third: {type: python, script: 'print(1)'}
`)
	got := map[string]string{}
	for i := 0; i < 3; i++ {
		m := outbox(t, e)
		got[m.Job[0].Name] = m.Dst
	}
	if got["train"] != peerA || got["other"] != "" || got["third"] != "" {
		t.Fatalf("dst by job %v: want train → peerA (registered), the others → \"\" (not registered)", got)
	}
}
