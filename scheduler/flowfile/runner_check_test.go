package flowfile_test

import (
	"errors"
	"testing"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// runnerWant is what the refusal of a runner value says a runner may be.
const runnerWant = `want self, a peer ID (12D3KooW…) or runner:<id> of a runner registered in the flow's context (hyphae runner list CONTEXT); leave runner out to let the agent pick a registered runner`

// peerA is a peer ID a runner value may name.
const peerA = "12D3KooWPeerAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// A runner value that is none of self, runner:<id> and a peer ID is
// refused when the file is read, saying what a runner may be, instead of
// being accepted and its job sent to no one when it is ready.
func TestParseRefusesRunnersThatAreNoPeer(t *testing.T) {
	for _, r := range []string{"not-a-peer", "12D3KooWAbc", "runner:abc", "sel f"} {
		text := "jobs:\n  a: {type: sh, script: x, runner: '" + r + "'}\n"
		_, _, err := flowfile.Parse([]byte(text), "flow.yaml", "")
		want := `flow.yaml:2: job "a": runner "` + r + `": ` + runnerWant
		var es flowfile.Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Error() != want {
			t.Errorf("runner %q: %v\nwant: %s", r, err, want)
		}
	}
	for _, r := range []string{"self", "runner:7", peerA, "12D3KooWPeerBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"} {
		text := "jobs:\n  a: {type: sh, script: x, runner: '" + r + "'}\n"
		if f, _, err := flowfile.Parse([]byte(text), "flow.yaml", ""); err != nil || f.Jobs[0].Runner != r {
			t.Errorf("runner %q refused: %v", r, err)
		}
	}
}
