package cli

import "github.com/spf13/cobra"

// addLater adds commands of later components (flow, demo, drain, runner).
func addLater(root *cobra.Command, g *globals) {}
