package scheduler_test

import (
	"encoding/json"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/flowtext"
	"github.com/hyphae-run/hyphae/scheduler"
)

// render draws st as `hyphae flow status` does, for a failing test's
// message: through its JSON, which the API's wire.FlowState reads.
func render(st *scheduler.Status) string {
	var v wire.FlowState
	b, err := json.Marshal(st)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return err.Error()
	}
	return flowtext.Render(&v)
}
