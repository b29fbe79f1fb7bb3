package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// rateWindow is how many of ui.stats's minutes the rates average over.
const rateWindow = 5

func newStats(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON, watch bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Jobs at a glance, per context: queued, running, finished, failed, rates; --watch keeps it live",
		Long: `Per context: its jobs, how many wait in queues, run, finished and failed,
and the jobs created and ended per minute over the last five minutes; then
each queue's depth and the newest failures. --watch redraws it every
--interval until Ctrl-C. -c N shows one context.`,
		Example: "  hyphae stats\n  hyphae stats -c 1 --watch",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if every <= 0 {
				return usage("--interval must be more than 0")
			}
			show := func() error { return showStats(cmd.Context(), g, cmd.OutOrStdout(), ctxID, asJSON) }
			if !watch {
				return show()
			}
			return watchStats(cmd.Context(), cmd.OutOrStdout(), every, show)
		},
	}
	addContextFlag(cmd, &ctxID, "only this context (default: every context of the agent)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: a list of per-context stats")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "redraw every --interval until interrupted")
	cmd.Flags().DurationVar(&every, "interval", 2*time.Second, "how often --watch redraws")
	return cmd
}

// watchStats calls show every interval until ctx ends, clearing a
// terminal first (else a timestamp line separates the views).
func watchStats(ctx context.Context, w io.Writer, every time.Duration, show func() error) error {
	tty := isTerminal(w)
	for {
		if tty {
			fmt.Fprint(w, "\033[H\033[2J")
		}
		fmt.Fprintf(w, "%s  (every %v, Ctrl-C stops)\n", time.Now().Format("15:04:05"), every)
		if err := show(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}

// showStats fetches ui.stats for ctxID (0: every context) and prints it.
func showStats(ctx context.Context, g *globals, w io.Writer, ctxID uint64, asJSON bool) error {
	ids := []uint64{ctxID}
	if ctxID == 0 {
		var cs []wire.ContextView
		if err := g.call(ctx, "context.list", nil, &cs); err != nil {
			return err
		}
		ids = ids[:0]
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
	}
	stats := make([]wire.ContextStats, 0, len(ids))
	for _, id := range ids {
		var st wire.ContextStats
		if err := g.call(ctx, "ui.stats", wire.StatsParams{Context: id}, &st); err != nil {
			return err
		}
		stats = append(stats, st)
	}
	if asJSON {
		return printJSON(w, stats)
	}
	printStats(w, stats)
	return nil
}

// printStats prints a line per context, then its queues and failures.
func printStats(w io.Writer, stats []wire.ContextStats) {
	if len(stats) == 0 {
		fmt.Fprintln(w, "no contexts (hyphae context create)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tJOBS\tQUEUED\tWAITING\tRUNNING\tFINISHED\tFAILED\tCREATED/MIN\tENDED/MIN")
	for _, st := range stats {
		var queued int64
		for _, n := range st.Queues {
			queued += n
		}
		created, ended := perMinute(st.Rates)
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\n", st.Context, st.Jobs, queued,
			st.Counts["dispatched"]+st.Counts["waiting_for_prerequisites"], st.Counts["started"],
			st.Counts["finished"], st.Counts["error"], created, ended)
	}
	tw.Flush()
	for _, st := range stats {
		for _, typ := range slices.Sorted(maps.Keys(st.Queues)) {
			if n := st.Queues[typ]; n > 0 {
				fmt.Fprintf(w, "context %d queue %s: %d waiting\n", st.Context, typ, n)
			}
		}
		for _, f := range st.Failures[:min(len(st.Failures), 3)] {
			fmt.Fprintf(w, "context %d failed %s %s: %s\n", st.Context, time.Unix(f.UpdatedAt, 0).Format("15:04:05"), f.Key, oneLine(f.Error, 80))
		}
	}
}

// perMinute averages the jobs created and ended over the last rateWindow
// minutes of rates (oldest first).
func perMinute(rates []wire.RateBucket) (created, ended float64) {
	last := rates[max(0, len(rates)-rateWindow):]
	if len(last) == 0 {
		return 0, 0
	}
	for _, r := range last {
		created += float64(r.Created)
		ended += float64(r.Finished + r.Failed)
	}
	return created / float64(len(last)), ended / float64(len(last))
}
