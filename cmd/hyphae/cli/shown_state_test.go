package cli

import (
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// job list and job status say the word the flow says for a job its flow
// cancelled, with the status the job hash keeps.
func TestShownStateSaysCancelled(t *testing.T) {
	for _, c := range []struct {
		j    wire.JobView
		want string
	}{
		{wire.JobView{Status: "error", State: "cancelled"}, "cancelled (error)"},
		{wire.JobView{Status: "started", State: "unknown"}, "unknown (started)"},
		{wire.JobView{Status: "error", State: "error"}, "error"},
	} {
		if got := shownState(&c.j); got != c.want {
			t.Errorf("shownState(%+v) = %q, want %q", c.j, got, c.want)
		}
	}
}
