package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// settingDefault is the CLI's word for "remove the setting": the API's "".
const settingDefault = "default"

func newContextSet(g *globals) *cobra.Command {
	var isolation, network string
	var ctxFlag uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "set [CONTEXT] [--isolation host|contained|default] [--network none|host|default]",
		Short: "Choose how a context's jobs are contained and whether they reach the network",
		Long: `Set a context's containment, an admin's choice for every job that runs in it
on this agent. A flag left out keeps its setting; default removes it.

--isolation
  contained  every job of the context runs contained, this agent's own too: as a
             user that is not the agent's, in its own mount, pid and ipc
             namespaces, seeing only its job directory, a private /tmp and the
             system files read-only.
  host       jobs from other actors (sent over the bus, or by their flows and
             events) run uncontained, on the host: they can read this agent's
             key, API token and store. Only for actors you trust with this
             machine; the agent logs a warning for such a context when it
             starts.
  default    the runner's configuration (runner.isolation): jobs from other
             actors contained, this agent's own on the host.

--network
  none       every job of the context runs contained with only loopback (lo): it
             reaches no other machine, whatever the job or its flow file asks.
  host       the machine's network, unless the job itself asks for none.
  default    as host: each job's own setting (job run --network, a flow's
             network: key) decides.

Jobs that start from a few seconds on follow the new settings; jobs already
running keep theirs.`,
		Example: "  hyphae context set 1 --network none\n" +
			"  hyphae context set 2 --isolation contained\n" +
			"  hyphae context set 2 --isolation default --network default",
		Args: ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			params := map[string]any{"id": id}
			for _, f := range []struct{ name, value string }{{"isolation", isolation}, {"network", network}} {
				if !cmd.Flags().Changed(f.name) {
					continue
				}
				v, err := settingValue(f.name, f.value)
				if err != nil {
					return err
				}
				params[f.name] = v
			}
			if len(params) == 1 {
				return usage("nothing to set: give --isolation host|contained|default or --network none|host|default " +
					"(see hyphae context set --help)")
			}
			var c wire.ContextView
			if err := g.call(cmd.Context(), "context.set", params, &c); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), c)
			}
			printContext(cmd.OutOrStdout(), &c, actorNames(cmd.Context(), g))
			if c.Isolation == "host" {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: jobs from other actors in context %d now run uncontained: "+
					"they can read this agent's key, token and store\n", c.ID)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&isolation, "isolation", "", "contained (every job), host (other actors' jobs uncontained) or default")
	cmd.Flags().StringVar(&network, "network", "", "none (only loopback for every job), host or default")
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the context as JSON")
	_ = cmd.RegisterFlagCompletionFunc("isolation", fixed("contained", "host", settingDefault))
	_ = cmd.RegisterFlagCompletionFunc("network", fixed("none", "host", settingDefault))
	return cmd
}

// settingValue is what context.set takes for flag name's value: "" for
// default; a value the flag does not know is a usage error listing them.
func settingValue(name, v string) (string, error) {
	want := map[string][]string{"isolation": {"host", "contained"}, "network": {"none", "host"}}[name]
	switch v {
	case settingDefault:
		return "", nil
	case want[0], want[1]:
		return v, nil
	}
	return "", usage("--%s %q: want %s, %s or %s", name, v, want[0], want[1], settingDefault)
}
