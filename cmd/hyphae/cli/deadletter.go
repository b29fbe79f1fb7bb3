package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newDeadLetter(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "deadletter",
		Aliases: []string{"dead"},
		Short:   "Jobs and messages set aside as poison: list, retry, delete",
		Long: `A context's dead letters are the jobs and messages that could not be
processed, with the reason: a job hash or message that does not decode or
is not valid (invalid), a queue entry that names no job (unusable), or a job
that failed quarantine.after_failures attempts in a row (failures; it is not
run again until retried). Retry puts a job back as a new attempt with a fresh
count, and a message back on the list it came from once its hash is fixed.
hyphae_dead_letters_total{context,reason} counts them on /metrics.`,
	}
	cmd.AddCommand(newDeadLetterList(g), newDeadLetterRetry(g), newDeadLetterDelete(g))
	return cmd
}

func newDeadLetterList(g *globals) *cobra.Command {
	var ctxFlag uint64
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [CONTEXT]",
		Short:   "List a context's dead letters, newest first, with the reason",
		Example: "  hyphae deadletter list --context 1",
		Args:    ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			var ds []wire.DeadLetter
			if err := g.call(cmd.Context(), "deadletter.list", map[string]any{"context": id, "limit": limit}, &ds); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ds)
			}
			printDeadLetters(cmd.OutOrStdout(), ds)
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many entries")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printDeadLetters(w io.Writer, ds []wire.DeadLetter) {
	if len(ds) == 0 {
		fmt.Fprintln(w, "no dead letters")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tCLASS\tQUEUE\tAT\tREASON")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Key, orDash(d.Class), orDash(d.Queue),
			time.Unix(d.At, 0).UTC().Format(time.RFC3339), d.Reason)
	}
	_ = tw.Flush()
}

func newDeadLetterRetry(g *globals) *cobra.Command {
	var ctxFlag uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "retry [CONTEXT] KEY",
		Short: "Put a dead letter's job or message back to be processed again",
		Long: `Retry a dead letter: a job (job:<caller>:<id>) that ended error is queued
again as a new attempt, its count of failures in a row started afresh; a
message (message:<caller>:<id>) goes back on msg_out (or msg_in) once its
hash decodes. Fix a malformed hash first (redis-cli HSET ...): retrying one
that still does not decode is refused with the reason.`,
		Example: "  hyphae deadletter retry --context 1 job:1:42\n  hyphae deadletter retry --context 1 message:1:7",
		Args:    ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, args, err := contextArgs(cmd, ctxFlag, args, 1)
			if err != nil {
				return err
			}
			var r wire.DeadLetterRetried
			if err := g.call(cmd.Context(), "deadletter.retry", wire.DeadLetterRef{Context: id, Key: args[0]}, &r); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), r)
			}
			if r.Job != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s queued again on %s as attempt %d\n", r.Key, r.Queue, r.Job.Attempt)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "%s pushed again on %s\n", r.Key, r.Queue)
			}
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newDeadLetterDelete(g *globals) *cobra.Command {
	var ctxFlag uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "delete [CONTEXT] KEY",
		Short: "Remove a context's dead letters for a key (the job or message itself stays)",
		Args:  ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, args, err := contextArgs(cmd, ctxFlag, args, 1)
			if err != nil {
				return err
			}
			var r wire.DeadLetterDeleted
			if err := g.call(cmd.Context(), "deadletter.delete", wire.DeadLetterRef{Context: id, Key: args[0]}, &r); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d entries removed\n", r.Deleted)
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
