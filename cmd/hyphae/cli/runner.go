package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newRunner(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runner",
		Short: "Name the agents that run a context's jobs: runner:<id> records",
		Long: `A runner record names an agent (by peer ID) in a context. A job or a flow
job may then say runner: runner:<id> instead of the peer ID, so the agent
behind it can change without editing every flow: update the record, not the
flows. A job with no runner (or run --to any) goes to the least loaded runner
registered in its context that is up and serves its script type, else to this
agent: only registered runners get jobs the agent places itself.`,
	}
	cmd.AddCommand(newRunnerCreate(g), newRunnerShow(g), newRunnerList(g))
	return cmd
}

func newRunnerCreate(g *globals) *cobra.Command {
	var peerID string
	var types []string
	var asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "create [CONTEXT] --peer PEER_ID",
		Short: "Record an agent as a runner of a context; prints its runner:<id>",
		Example: `  hyphae runner create 1 --peer 12D3KooW... --type sh --type python
  # then, in a flow file:  upload: {type: python, runner: "runner:1", script: ...}`,
		Args: ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			p := map[string]any{"context": id, "pubkey": peerID, "script_types": types}
			return callRunners[wire.RunnerView](cmd, g, "runner.create", p, asJSON)
		},
	}
	cmd.Flags().StringVar(&peerID, "peer", "", "peer ID of the agent (hyphae id on its machine prints it)")
	cmd.Flags().StringArrayVar(&types, "type", nil, "a script type it runs (repeatable); when given, only jobs of these types are placed on it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	_ = cmd.MarkFlagRequired("peer")
	addContextFlag(cmd, &ctxFlag, contextUse)
	return cmd
}

func newRunnerShow(g *globals) *cobra.Command {
	var asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:     "show [CONTEXT] ID",
		Short:   "Show one runner record of a context",
		Example: "  hyphae runner show -c 1 runner:1\n  hyphae runner show 1 1",
		Args:    ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctxID, args, err := contextArgs(cmd, ctxFlag, args, 1)
			if err != nil {
				return err
			}
			id, err := strconv.ParseUint(strings.TrimPrefix(args[0], "runner:"), 10, 64)
			if err != nil {
				return usage("runner id %q: want a number (or runner:<n>)", args[0])
			}
			return callRunners[wire.RunnerView](cmd, g, "runner.load", map[string]any{"context": ctxID, "id": id}, asJSON)
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newRunnerList(g *globals) *cobra.Command {
	var asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "list [CONTEXT]",
		Short: "List a context's runner records",
		Args:  ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			return callRunners[[]wire.RunnerView](cmd, g, "runner.list", map[string]any{"context": id}, asJSON)
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// callRunners calls method and prints the runner record, or the list of
// them, that it returns: as JSON, or a line per record (printRunner).
func callRunners[T wire.RunnerView | []wire.RunnerView](cmd *cobra.Command, g *globals, method string,
	params map[string]any, asJSON bool) error {
	var out T
	if err := g.call(cmd.Context(), method, params, &out); err != nil {
		return err
	}
	if v, ok := any(out).([]wire.RunnerView); ok && len(v) == 0 {
		if err := g.requireContext(cmd.Context(), params["context"].(uint64)); err != nil {
			return err
		}
	}
	if asJSON {
		return printJSON(cmd.OutOrStdout(), out)
	}
	switch v := any(out).(type) {
	case wire.RunnerView:
		printRunner(cmd.OutOrStdout(), &v)
	case []wire.RunnerView:
		if len(v) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "no runner records in context %v (hyphae runner create)\n", params["context"])
			return nil
		}
		printRunnerTable(cmd.OutOrStdout(), v)
	}
	return nil
}

// printRunner prints one runner record on a line: its ref, the agent and
// the script types noted for it.
func printRunner(w io.Writer, r *wire.RunnerView) {
	fmt.Fprintf(w, "%-10s %s  types=%s\n", r.Ref, r.Pubkey, runnerTypes(r))
}

// printRunnerTable prints runner records a line each, under a header.
func printRunnerTable(w io.Writer, rs []wire.RunnerView) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUNNER\tPEER\tTYPES")
	for i := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", rs[i].Ref, rs[i].Pubkey, runnerTypes(&rs[i]))
	}
	tw.Flush()
}

// runnerTypes is the script types noted for r, "-" for any.
func runnerTypes(r *wire.RunnerView) string {
	if len(r.ScriptTypes) == 0 {
		return "-"
	}
	return strings.Join(r.ScriptTypes, ",")
}
