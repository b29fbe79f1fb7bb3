package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// Every command that shows or changes something takes --json, so scripts
// never parse text: job stop, flow start, flow cancel and context grant
// used to lack it.
func TestEveryCommandTakesJSON(t *testing.T) {
	// Commands that print no object: the agent itself, a demo, text
	// streams, help and setup.
	exempt := []string{"hyphae run", "hyphae demo", "hyphae init", "hyphae version", "hyphae ui", "hyphae job logs"}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.HasSubCommands() || !c.Runnable() || slices.Contains(exempt, c.CommandPath()) ||
			(c.HasParent() && c.Parent().Name() == "completion") { // shell scripts
			return
		}
		if c.Flags().Lookup("json") == nil {
			t.Errorf("%s has no --json", c.CommandPath())
		}
	}
	walk(newRoot(&globals{agent: agent.New()}))
}
