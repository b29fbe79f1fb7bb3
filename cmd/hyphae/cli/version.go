package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node"
)

func newVersion(*globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "hyphae %s (%s, %s/%s)\n", node.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		},
	}
}
