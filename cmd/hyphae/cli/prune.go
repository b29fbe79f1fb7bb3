package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newPrune(g *globals) *cobra.Command {
	var (
		p         wire.PruneParams
		olderThan time.Duration
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove ended jobs, flows and messages past the retention rules now",
		Long: `Apply the retention rules (config section retention) now instead of at the
next sweep: finished and failed jobs, ended flows and settled messages older
than retention.max_age (or --older-than), or beyond the counts kept per
context, are removed with their logs and job directories; msg_in is trimmed.
Nothing that has not ended goes, nor anything a running flow or an
unanswered remote job still needs. --dry-run removes nothing and says what
would go.

  hyphae prune --dry-run
  hyphae prune --context 1 --older-than 24h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("older-than") {
				if olderThan < 0 {
					return usage("--older-than %v: must not be negative", olderThan)
				}
				p.OlderThan = olderThan.String()
			}
			var v wire.PruneView
			if err := g.call(cmd.Context(), "node.prune", p, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			printPrune(cmd.OutOrStdout(), &v)
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64VarP(&p.Context, "context", "c", 0, "prune this context only (default: every context of the agent)")
	f.DurationVar(&olderThan, "older-than", 0, "remove what ended longer ago than this (default: retention.max_age); 0s: everything ended")
	f.BoolVar(&p.DryRun, "dry-run", false, "remove nothing; say what would go")
	f.BoolVar(&asJSON, "json", false, "print JSON: dry_run, older_than, contexts (per context counts and bytes), total")
	return cmd
}

// printPrune writes one line per context and the total.
func printPrune(w io.Writer, v *wire.PruneView) {
	verb := "removed"
	if v.DryRun {
		verb = "would remove"
	}
	for _, c := range v.Contexts {
		fmt.Fprintf(w, "context %d: %s %s\n", c.Context, verb, pruneCounts(c))
	}
	fmt.Fprintf(w, "total (ended more than %s ago, or beyond the counts kept): %s %s\n", v.OlderThan, verb, pruneCounts(v.Total))
}

func pruneCounts(c wire.PruneCounts) string {
	return fmt.Sprintf("%d jobs, %d flows, %d messages, %d msg_in entries, %d job directories (%s in Redis, %s on disk)",
		c.Jobs, c.Flows, c.Messages, c.MsgIn, c.Dirs, humanBytes(c.RedisBytes), humanBytes(c.DiskBytes))
}

// humanBytes writes n as B, KiB, MiB or GiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), []string{"KiB", "MiB", "GiB", "TiB"}
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", v, suffix[i])
}
