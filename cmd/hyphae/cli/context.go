package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newContext(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "context",
		Aliases: []string{"ctx"},
		Short:   "Create contexts (tenants), grant actors roles in them, choose their containment",
		Long: `A context is a tenant: Redis DB N on this agent, with lists of admins,
executors (may submit jobs) and readers. Other agents' actors are named by
their peer ID (hyphae id on their machine prints it). hyphae context set
chooses how its jobs are contained and whether they reach the network.`,
	}
	cmd.AddCommand(newContextCreate(g), newContextGrant(g, true), newContextGrant(g, false),
		newContextShow(g), newContextList(g), newContextSet(g))
	return cmd
}

func newContextCreate(g *globals) *cobra.Command {
	var id uint64
	var name string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "create",
		Short:   "Create a context; this agent's actor becomes its admin",
		Example: "  hyphae context create --id 1 --name lab",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("id") && id == 0 {
				return usage("--id 0: there is no context 0; DB 0 is the agent's own (actors, the context registry, peers). " +
					"Context ids start at 1; leave --id out to take the lowest free one")
			}
			params := map[string]any{"name": name}
			if cmd.Flags().Changed("id") {
				params["id"] = id
			}
			var c wire.ContextView
			if err := g.call(cmd.Context(), "context.create", params, &c); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), c)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created context %d\n", c.ID)
			return nil
		},
	}
	cmd.Flags().Uint64Var(&id, "id", 0, "context id = Redis DB number, 1 or more (default: lowest free)")
	cmd.Flags().StringVar(&name, "name", "", "a name to remember it by")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newContextGrant(g *globals, give bool) *cobra.Command {
	var actor, role string
	var ctxFlag uint64
	var asJSON bool
	verb, method := "grant", "context.grant"
	if !give {
		verb, method = "revoke", "context.revoke"
	}
	cmd := &cobra.Command{
		Use:     verb + " [CONTEXT] --actor PEER_ID --role executor|reader|admin",
		Short:   map[bool]string{true: "Give an actor a role in a context", false: "Take a role away"}[give],
		Example: "  hyphae context " + verb + " 1 --actor 12D3KooW... --role executor",
		Args:    ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			var c wire.ContextView
			if err := g.call(cmd.Context(), method, map[string]any{"id": id, "actor": actor, "role": role}, &c); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), c)
			}
			printContext(cmd.OutOrStdout(), &c, actorNames(cmd.Context(), g))
			return nil
		},
	}
	cmd.Flags().StringVar(&actor, "actor", "", "peer ID (or local actor id) of the actor")
	cmd.Flags().StringVar(&role, "role", "executor", "admin, executor or reader")
	_ = cmd.MarkFlagRequired("actor")
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the context as JSON")
	return cmd
}

func newContextShow(g *globals) *cobra.Command {
	var asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "show [CONTEXT]",
		Short: "Show a context and who may do what in it",
		Args:  ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			var c wire.ContextView
			if err := g.call(cmd.Context(), "context.load", map[string]any{"id": id}, &c); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), c)
			}
			printContext(cmd.OutOrStdout(), &c, actorNames(cmd.Context(), g))
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newContextList(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List this agent's contexts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var cs []wire.ContextView
			if err := g.call(cmd.Context(), "context.list", nil, &cs); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), cs)
			}
			names := actorNames(cmd.Context(), g)
			for i := range cs {
				printContext(cmd.OutOrStdout(), &cs[i], names)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printContext prints a context and who holds each role: actors by id and
// peer ID (names, from actorNames; an id missing there shows alone).
func printContext(w io.Writer, c *wire.ContextView, names map[uint64]string) {
	title := fmt.Sprintf("context %d", c.ID)
	if c.Name != "" {
		title += " " + c.Name
	}
	fmt.Fprintf(w, "%s\n  admins:    %s\n  executors: %s\n  readers:   %s\n", title,
		holders(c.Admins, names), holders(c.Executors, names), holders(c.Readers, names))
	if c.Isolation != "" {
		fmt.Fprintf(w, "  isolation: %s\n", isolationNote(c.Isolation))
	}
	if c.Network != "" {
		fmt.Fprintf(w, "  network:   %s\n", networkNote(c.Network))
	}
}

// isolationNote is a context's isolation setting with what it means.
func isolationNote(v string) string {
	switch v {
	case "host":
		return "host (jobs from other actors run uncontained)"
	case "contained":
		return "contained (every job, this agent's own too)"
	}
	return v
}

// networkNote is a context's network setting with what it means.
func networkNote(v string) string {
	if v == "none" {
		return "none (every job gets only loopback)"
	}
	return v
}

// holders lists the actors of one role: "1 12D3KooW… (this agent), 2 12D3KooW…".
func holders(ids []uint64, names map[uint64]string) string {
	if len(ids) == 0 {
		return "none"
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatUint(id, 10)
		if n := names[id]; n != "" {
			out[i] += " " + n
		}
	}
	return strings.Join(out, ", ")
}

// actorNames maps the agent's actor ids to their peer IDs, marking its own;
// nil when the agent cannot list them (the ids are shown alone then).
func actorNames(ctx context.Context, g *globals) map[uint64]string {
	var as []wire.ActorView
	if err := g.call(ctx, "actor.list", nil, &as); err != nil {
		return nil
	}
	names := make(map[uint64]string, len(as))
	for i := range as {
		names[as[i].ID] = actorLabel(&as[i])
	}
	return names
}
