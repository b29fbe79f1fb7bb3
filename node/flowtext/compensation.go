package flowtext

import (
	"fmt"
	"strings"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// writeCompensation adds how a failed flow undid its finished jobs: the
// flow's compensation state, each job's compensation and, when one
// failed, which (docs/sagas.md).
func writeCompensation(b *strings.Builder, st *wire.FlowState) {
	if st.Compensation == "" {
		return
	}
	fmt.Fprintf(b, "compensation: %s\n", st.Compensation)
	for _, j := range st.Jobs {
		if c := j.Compensation; c != nil {
			fmt.Fprintf(b, "  %s  %s  %s\n", j.Name, c.State, c.Key)
		}
	}
	if st.CompensationError != "" {
		fmt.Fprintf(b, "compensation error: %s\n", st.CompensationError)
	}
}
