package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newFlowSchedule(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Start flows on a schedule: add, list, pause, resume, remove",
		Long: `A flow file with a schedule: key (a cron line, seconds optional, or @every 5m,
@daily; timezone; catch_up: skip|run_once; overlap: skip|allow|cancel_previous)
is installed with "hyphae flow schedule add FILE": from then on this agent
starts a run of the flow at each tick. A schedule is named after its flow and
lives in the context's Redis: it survives restarts, and a tick never starts
two runs. See docs/time.md.`,
	}
	cmd.AddCommand(newScheduleAdd(g), newScheduleList(g),
		newScheduleAct(g, "pause", "Stop a schedule from firing until resume"),
		newScheduleAct(g, "resume", "Fire a paused schedule again from its next tick"),
		newScheduleAct(g, "remove", "Delete a schedule (the runs it started stay)"))
	cmd.Example = `  hyphae flow schedule add configs/flows/nightly-backup.yaml
  hyphae flow schedule list -c 1
  hyphae flow schedule pause nightly-backup -c 1
  HYPHAE_CONTEXT=1 hyphae flow schedule resume nightly-backup`
	return cmd
}

func newScheduleAdd(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "add FILE",
		Short:   "Install the schedule of a flow file",
		Example: "  hyphae flow schedule add configs/flows/nightly-backup.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, dir, err := readFlowFile(args[0])
			if err != nil {
				return err
			}
			p := wire.ScheduleAddParams{FileContent: text, FileName: args[0], BaseDir: dir, Context: ctxID}
			var v wire.ScheduleView
			if err := g.call(cmd.Context(), "flow.schedule.add", p, &v); err != nil {
				return err
			}
			return showSchedules(cmd.OutOrStdout(), []*wire.ScheduleView{&v}, asJSON)
		},
	}
	addContextFlag(cmd, &ctxID, "context id (default: the file's `context:`)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the schedule as JSON")
	return cmd
}

func newScheduleList(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List schedules: next and last tick, runs, skipped",
		Example: "  hyphae flow schedule list\n  hyphae flow schedule list -c 1 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var vs []*wire.ScheduleView
			if err := g.call(cmd.Context(), "flow.schedule.list", wire.ScheduleListParams{Context: ctxID}, &vs); err != nil {
				return err
			}
			return showSchedules(cmd.OutOrStdout(), vs, asJSON)
		},
	}
	addContextFlag(cmd, &ctxID, "only this context (default: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// newScheduleAct is pause, resume or remove NAME --context N (-c N,
// default $HYPHAE_CONTEXT).
func newScheduleAct(g *globals, verb, short string) *cobra.Command {
	var ctxFlag uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   verb + " NAME --context N",
		Short: short,
		Long: short + `.

NAME is the schedule's name, its flow's (hyphae flow schedule list shows
them); the context is --context N (-c N), default $` + envContext + `.`,
		Example: fmt.Sprintf("  hyphae flow schedule %s nightly-backup -c 1\n  HYPHAE_CONTEXT=1 hyphae flow schedule %s nightly-backup", verb, verb),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctxID, err := contextOrEnv(cmd, ctxFlag)
			if err != nil {
				return err
			}
			p := wire.ScheduleRef{Context: ctxID, Name: args[0]}
			if verb == "remove" {
				if err := g.call(cmd.Context(), "flow.schedule.remove", p, nil); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed schedule %s of context %d\n", args[0], ctxID)
				return nil
			}
			var v wire.ScheduleView
			if err := g.call(cmd.Context(), "flow.schedule."+verb, p, &v); err != nil {
				return err
			}
			return showSchedules(cmd.OutOrStdout(), []*wire.ScheduleView{&v}, asJSON)
		},
	}
	addContextFlag(cmd, &ctxFlag, "context id (required; default $"+envContext+")")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the schedule as JSON")
	return cmd
}

func showSchedules(w io.Writer, vs []*wire.ScheduleView, asJSON bool) error {
	if asJSON {
		return printJSON(w, vs)
	}
	if len(vs) == 0 {
		fmt.Fprintln(w, "no schedules")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tNAME\tCRON\tNEXT\tLAST\tRUNS\tSKIPPED\tLAST FLOW")
	for _, v := range vs {
		cron := v.Cron
		if v.TimeZone != "" {
			cron += " (" + v.TimeZone + ")"
		}
		next := tickTime(v.NextTick)
		if v.Paused {
			next = "paused"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", v.Context, v.Name, cron, next, tickTime(v.LastTick),
			v.Runs, v.Skipped, lastFlow(v.LastFlow))
	}
	return tw.Flush()
}

func tickTime(unix int64) string {
	if unix == 0 {
		return "-"
	}
	return time.Unix(unix, 0).Format("2006-01-02 15:04:05 MST")
}

func lastFlow(id uint64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}
