package flowfile_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
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

// A job's network is its own, else the flow's; a compensation's is its
// own, else its job's.
func TestNetworkParse(t *testing.T) {
	f, _, err := flowfile.Parse([]byte(networkFlow), "flow.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if f.Network != model.NetworkNone {
		t.Fatalf("flow network %q, want none", f.Network)
	}
	for name, want := range map[string]string{"a": "", "b": "host", "c": "", "d": "host"} {
		if got := f.Job(name).Network; got != want {
			t.Errorf("job %s: network %q, want %q as written", name, got, want)
		}
	}
	if c := f.Job("d").Compensate; c == nil || c.Network != model.NetworkNone {
		t.Fatalf("d's compensation: %+v, want network none", c)
	}
}

// A File built by a caller (not parsed) is checked too.
func TestValidateRefusesABadNetwork(t *testing.T) {
	f := &flowfile.File{Name: "x", Context: 1, Jobs: []*flowfile.JobSpec{{Name: "a", Type: "sh", Script: "x", Network: "lan"}}}
	if err := f.Validate(); err == nil {
		t.Fatal("a job with network lan validated")
	}
	f.Jobs[0].Network, f.Network = "", "off"
	if err := f.Validate(); err == nil {
		t.Fatal("a flow with network off validated")
	}
}
