package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// idemFlag is the flag that gives a submission its idempotency key.
const idemFlag = "idempotency-key"

// addIdemFlag adds --idempotency-key to a command that submits work.
func addIdemFlag(cmd *cobra.Command, what string) {
	cmd.Flags().String(idemFlag, "", "submit at most once per key: a second submission with the same key "+
		"within the retention window (idempotency.retention, default 24h) prints the first "+what+
		" instead of running again (see docs/idempotency.md)")
}

// idemKey is the command's --idempotency-key ("" when it has none).
func idemKey(cmd *cobra.Command) string {
	k, _ := cmd.Flags().GetString(idemFlag)
	return k
}

// noteDeduplicated tells, on stderr, that the answer is an earlier
// submission's job or flow (ref), not a new one.
func noteDeduplicated(w io.Writer, key, ref string, differs bool) {
	fmt.Fprintf(w, "note: idempotency key %q was used within the retention window: this is %s, not run again\n", key, ref)
	if differs {
		fmt.Fprintf(w, "note: that earlier submission's content differs from this one; use a new key to run this one\n")
	}
}
