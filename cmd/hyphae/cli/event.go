package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newEvent(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "event",
		Short: "Publish events; install the flow triggers they start",
		Long: `An event is a named, signed message with a JSON payload, published on this
agent or sent to another one. A flow file with on: {event: NAME, where: …},
installed with "hyphae event trigger add FILE", starts one run per matching
event; a flow step wait_for: {event: NAME, correlation: FIELD, timeout: 30m}
parks its run until the matching event comes. See docs/events.md.`,
	}
	trig := &cobra.Command{Use: "trigger", Short: "Start flows on events: add, list, remove"}
	trig.AddCommand(newTriggerAdd(g), newTriggerList(g), newTriggerRemove(g))
	cmd.AddCommand(newEventPublish(g), newEventList(g), trig)
	return cmd
}

func newEventPublish(g *globals) *cobra.Command {
	var ctxID, from uint64
	var data, to, corr, id, idem string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "publish [CONTEXT] NAME --data JSON",
		Short:   "Publish an event here, or send it to another agent (--to PEER)",
		Example: `  hyphae event publish -c 1 order.created --data '{"order_id": "o-42", "sku": "book"}'`,
		Args:    ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, rest, err := contextArgs(cmd, ctxID, args, 1)
			if err != nil {
				return err
			}
			if data != "" && !json.Valid([]byte(data)) {
				return usage("--data is not JSON: %s", data)
			}
			p := wire.EventPublishParams{Context: c, Name: rest[0], To: to, From: from, CorrelationID: corr, ID: id, Idempotency: idem}
			if data != "" {
				p.Data = json.RawMessage(data)
			}
			var v wire.EventView
			if err := g.call(cmd.Context(), "event.publish", p, &v); err != nil {
				return err
			}
			return showEvents(cmd.OutOrStdout(), []*wire.EventView{&v}, asJSON)
		},
	}
	addContextFlag(cmd, &ctxID, "context id: this agent's, or with --to the target context there")
	cmd.Flags().StringVar(&data, "data", "", "the payload, JSON (default null)")
	cmd.Flags().StringVar(&to, "to", "", "send to this peer ID (default: this agent's own event)")
	cmd.Flags().Uint64Var(&from, "from-context", 0, "with --to: the local context that records it")
	cmd.Flags().StringVar(&corr, "correlation-id", "", "the saga it belongs to (an order id, say)")
	cmd.Flags().StringVar(&id, "id", "", "the event's id (default: a new one); one run per trigger and id")
	cmd.Flags().StringVar(&idem, "idempotency-key", "", "the same as --id: publishing it again starts no second run")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the event as JSON")
	return cmd
}

func newEventList(g *globals) *cobra.Command {
	var ctxID uint64
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [CONTEXT]",
		Short: "List the newest events of a context",
		Args:  ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := contextArgs(cmd, ctxID, args, 0)
			if err != nil {
				return err
			}
			var vs []*wire.EventView
			if err := g.call(cmd.Context(), "event.list", map[string]any{"context": c, "limit": limit}, &vs); err != nil {
				return err
			}
			return showEvents(cmd.OutOrStdout(), vs, asJSON)
		},
	}
	addContextFlag(cmd, &ctxID, "context id")
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func showEvents(w io.Writer, vs []*wire.EventView, asJSON bool) error {
	if asJSON {
		return printJSON(w, vs)
	}
	if len(vs) == 0 {
		fmt.Fprintln(w, "no events")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tNAME\tID\tCORRELATION\tFROM/TO\tDATA")
	for _, v := range vs {
		peer := v.From
		if v.To != "" {
			peer = "→ " + v.To
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.Key, v.Name, v.ID, dash(v.CorrelationID), dash(peer), v.Data)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newTriggerAdd(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "add FILE",
		Short:   "Install the on: of a flow file",
		Example: "  hyphae event trigger add configs/flows/order-saga.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, dir, err := readFlowFile(args[0])
			if err != nil {
				return err
			}
			p := wire.TriggerAddParams{FileContent: text, FileName: args[0], BaseDir: dir, Context: ctxID}
			var v wire.TriggerView
			if err := g.call(cmd.Context(), "event.trigger.add", p, &v); err != nil {
				return err
			}
			return showTriggers(cmd.OutOrStdout(), []*wire.TriggerView{&v}, asJSON)
		},
	}
	addContextFlag(cmd, &ctxID, "context id (default: the file's context:)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the trigger as JSON")
	return cmd
}

func newTriggerList(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [CONTEXT]",
		Short: "List the triggers of a context",
		Args:  ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := contextArgs(cmd, ctxID, args, 0)
			if err != nil {
				return err
			}
			var vs []*wire.TriggerView
			if err := g.call(cmd.Context(), "event.trigger.list", map[string]any{"context": c}, &vs); err != nil {
				return err
			}
			return showTriggers(cmd.OutOrStdout(), vs, asJSON)
		},
	}
	addContextFlag(cmd, &ctxID, "context id")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTriggerRemove(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "remove [CONTEXT] NAME",
		Short: "Delete a trigger (the runs it started stay)",
		Args:  ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, rest, err := contextArgs(cmd, ctxID, args, 1)
			if err != nil {
				return err
			}
			var res map[string]bool
			p := wire.TriggerRef{Context: c, Name: rest[0]}
			if err := g.call(cmd.Context(), "event.trigger.remove", p, &res); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed trigger %s of context %d\n", rest[0], c)
			return nil
		},
	}
	addContextFlag(cmd, &ctxID, "context id")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func showTriggers(w io.Writer, vs []*wire.TriggerView, asJSON bool) error {
	if asJSON {
		return printJSON(w, vs)
	}
	if len(vs) == 0 {
		fmt.Fprintln(w, "no triggers")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tNAME\tEVENT\tWHERE\tCORRELATION")
	for _, v := range vs {
		where, _ := json.Marshal(v.Where)
		if len(v.Where) == 0 {
			where = []byte("-")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", v.Context, v.Name, v.Event, where, dash(v.Correlation))
	}
	return tw.Flush()
}
