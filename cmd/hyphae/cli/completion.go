package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// completeFunc is a cobra completion function.
type completeFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// fixed completes from a list of values.
func fixed(values ...string) completeFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletions gives shell completion (hyphae completion bash|zsh|
// fish) values for the flags every command shares by name, --type,
// --role, --status, --context and --flow, and for job keys and flow ids as
// arguments. Values the agent knows are asked of it; with no agent
// there are none.
func registerCompletions(root *cobra.Command, g *globals) {
	byFlag := map[string]completeFunc{
		"type":    completeTypes(g),
		"role":    fixed("admin", "executor", "reader"),
		"status":  fixed("dispatched", "waiting_for_prerequisites", "started", "error", "finished"),
		"context": completeContexts(g),
		"flow":    completeFlowIDs(g), // job list --flow
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, f := range byFlag {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
		switch c.CommandPath() {
		case "hyphae job status", "hyphae job logs", "hyphae job stop", "hyphae job retry":
			c.ValidArgsFunction = completeJobKeys(g)
		case "hyphae flow status", "hyphae flow watch", "hyphae flow cancel", "hyphae flow start":
			c.ValidArgsFunction = completeFlowIDs(g)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeTypes is the built-in script types and those the agent serves.
func completeTypes(g *globals) completeFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		types := []string{"noop", "sh", "bash", "python"}
		for _, t := range servedTypes(ctxOf(cmd), g) {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		return types, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeContexts is the agent's context ids, with their names.
func completeContexts(g *globals) completeFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		var cs []wire.ContextView
		if err := g.call(ctxOf(cmd), "context.list", nil, &cs); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]string, 0, len(cs))
		for _, c := range cs {
			out = append(out, strings.TrimSuffix(fmt.Sprintf("%d\t%s", c.ID, c.Name), "\t"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeJobKeys is the newest job keys of the context the command line
// names so far (-c N, the positional CONTEXT, or $HYPHAE_CONTEXT), with
// each job's status; before a key the positional CONTEXT may come.
func completeJobKeys(g *globals) completeFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		id, ok := completionContext(cmd, args)
		if !ok {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var js []wire.JobView
		if err := g.call(ctxOf(cmd), "job.list", map[string]any{"context": id, "limit": 50}, &js); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]string, 0, len(js))
		for _, j := range js {
			out = append(out, j.Key+"\t"+j.Status+" "+j.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFlowIDs is the flow ids of the context -c or $HYPHAE_CONTEXT
// names, with each flow's name and status.
func completeFlowIDs(g *globals) completeFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		id, ok := completionContext(cmd, nil)
		if !ok || len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var fs []wire.FlowSummary
		if err := g.call(ctxOf(cmd), "flow.list", map[string]any{"context": id}, &fs); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]string, 0, len(fs))
		for _, f := range fs {
			out = append(out, fmt.Sprintf("%d\t%s %s", f.ID, f.Name, f.Status))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionContext is the context the command line gives so far, when
// a job key may come next: args may hold the positional CONTEXT, and
// nothing after it.
func completionContext(cmd *cobra.Command, args []string) (uint64, bool) {
	switch {
	case len(args) > 1:
		return 0, false
	case len(args) == 1:
		id, err := strconv.ParseUint(args[0], 10, 64)
		return id, err == nil // else a key was given already
	}
	if f := cmd.Flags().Lookup("context"); f != nil && f.Changed {
		id, err := strconv.ParseUint(f.Value.String(), 10, 64)
		return id, err == nil
	}
	id, err := contextFromEnv()
	return id, err == nil
}

// ctxOf is the command's context, or a background one when completion
// runs without one.
func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
