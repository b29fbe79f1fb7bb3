package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/flowtext"
)

func newFlow(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "flow",
		Short: "Run DAG workflows of jobs across agents: run, create, start, status, watch, cancel, list",
		Long: `A flow file (YAML) names jobs and what each needs; the supervisor runs each
job as soon as its needs finish, here or on the runner it names, and passes
results downstream as HYPHAE_IN_<JOB>_<KEY> env vars. See configs/flows/.`,
	}
	cmd.AddCommand(newFlowRun(g), newFlowCreate(g), newFlowStart(g), newFlowStatus(g),
		newFlowWatch(g), newFlowCancel(g), newFlowList(g), newFlowSchedule(g), newFlowRerun(g))
	return cmd
}

func newFlowRun(g *globals) *cobra.Command {
	var ctxID uint64
	var wait, asJSON bool
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Create and start a flow; with --wait, follow it to the end",
		Long: `Validate FILE, store it and start it. With --wait it prints each job's
progress (stderr) and ends with the DAG and the result; the exit code is 0
when the flow finished, 1 when it ended with an error.

Validation refuses, with file and line, before anything runs: unknown keys,
unknown or cyclic needs, bad values, and a script type that is neither built
in (noop, sh, bash, python) nor served by any agent this one knows. A type
that only agents not up right now serve is a warning.`,
		Example: `  hyphae flow run configs/flows/diamond.yaml --wait
  hyphae flow run nightly.yaml --context 2 --wait --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := createFlow(cmd, g, args[0], ctxID, true)
			if err != nil {
				return err
			}
			if wait {
				logs := newFlowLogs(g, cmd.ErrOrStderr())
				if v, err = followFlowLogs(cmd.Context(), g, v, progressPrinter(cmd.ErrOrStderr()), logs); err != nil {
					return err
				}
			}
			return showFlow(cmd.OutOrStdout(), v, asJSON, wait)
		},
	}
	addContextFlag(cmd, &ctxID, "context id (default: the file's `context:`)")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the flow until it ends and print its result")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the flow as JSON (status, result, jobs)")
	addIdemFlag(cmd, "flow")
	return cmd
}

func newFlowCreate(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "create FILE",
		Short:   "Validate and store a flow without starting it",
		Example: "  hyphae flow create nightly.yaml && hyphae flow start 3 --context 1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := createFlow(cmd, g, args[0], ctxID, false)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "flow %d (%s) created in context %d with %d jobs; start it with:\n  hyphae flow start %d --context %d\n",
				v.ID, v.Name, v.ContextID, len(v.Jobs), v.ID, v.ContextID)
			return nil
		},
	}
	addContextFlag(cmd, &ctxID, "context id (default: the file's `context:`)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the flow as JSON")
	addIdemFlag(cmd, "flow")
	return cmd
}

// createFlow sends FILE's text and directory (so script_file works) to
// flow.create and prints its warnings.
func createFlow(cmd *cobra.Command, g *globals, path string, ctxID uint64, start bool) (*wire.FlowView, error) {
	text, dir, err := readFlowFile(path)
	if err != nil {
		return nil, err
	}
	p := wire.FlowCreateParams{FileContent: text, FileName: path, BaseDir: dir, Context: ctxID, Start: start}
	p.Traceparent = callerTrace() // trace_env.go
	p.IdempotencyKey = idemKey(cmd)
	var v wire.FlowView
	if err := g.call(cmd.Context(), "flow.create", p, &v); err != nil {
		return nil, err
	}
	if v.Deduplicated {
		noteDeduplicated(cmd.ErrOrStderr(), p.IdempotencyKey, fmt.Sprintf("flow %d", v.ID), v.ContentDiffers)
	}
	for _, w := range v.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	return &v, nil
}

// readFlowFile reads a flow file's text and its directory, made absolute
// (the agent resolves the file's script_file against it).
func readFlowFile(path string) (text, dir string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", usage("flow file: %v", err)
	}
	dir, err = filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", "", usage("flow file: %v", err)
	}
	return string(b), dir, nil
}

// showFlow prints the flow (JSON or drawn); an ended flow with an error
// gives exit code 1.
func showFlow(w io.Writer, v *wire.FlowView, asJSON, ended bool) error {
	if asJSON {
		if err := printJSON(w, v); err != nil {
			return err
		}
	} else if ended {
		fmt.Fprint(w, flowtext.Render(&v.FlowState))
	} else {
		fmt.Fprintf(w, "flow %d (%s) started in context %d with %d jobs; follow it with:\n  hyphae flow watch %d --context %d\n",
			v.ID, v.Name, v.ContextID, len(v.Jobs), v.ID, v.ContextID)
	}
	if ended && v.Terminal() && v.Error != "" {
		return failed("flow %d %s: %s", v.ID, v.Status, v.Error)
	}
	return nil
}

// followFlow long-polls flow.wait until the flow ends, calling onChange
// with each new version.
func followFlow(ctx context.Context, g *globals, v *wire.FlowView, onChange func(prev, cur *wire.FlowView)) (*wire.FlowView, error) {
	return followFlowLogs(ctx, g, v, onChange, nil)
}

// followFlowLogs is followFlow that also streams the jobs' log lines
// (when logs is not nil), asking every two seconds rather than ten so
// that lines come soon after they are written.
func followFlowLogs(ctx context.Context, g *globals, v *wire.FlowView, onChange func(prev, cur *wire.FlowView),
	logs *flowLogs) (*wire.FlowView, error) {
	timeout := int64(10)
	if logs != nil {
		timeout = 2
	}
	onChange(nil, v)
	if logs != nil && v.Terminal() { // ended already: its lines once
		logs.tick(ctx, v)
	}
	for !v.Terminal() {
		var next wire.FlowView
		p := wire.FlowWaitParams{FlowRef: wire.FlowRef{Context: v.ContextID, ID: v.ID}, Timeout: timeout, After: v.Version}
		if err := g.call(ctx, "flow.wait", p, &next); err != nil {
			return nil, err
		}
		if next.Version != v.Version {
			onChange(v, &next)
		}
		v = &next
		if logs != nil {
			logs.tick(ctx, v)
		}
	}
	return v, nil
}

// progressPrinter prints one line per job whose state changed, with the
// time since it was made (the start of the wait).
func progressPrinter(w io.Writer) func(prev, cur *wire.FlowView) {
	start := time.Now()
	return func(prev, cur *wire.FlowView) {
		was := map[string]model.NodeState{}
		if prev != nil {
			for _, j := range prev.Jobs {
				was[j.Name] = j.State
			}
		}
		for _, j := range cur.Jobs {
			if j.State == was[j.Name] || (prev == nil && j.State == model.NodePending) {
				continue
			}
			line := fmt.Sprintf("%s +%-4v [%d/%d]  %-16s %s", time.Now().Format("15:04:05"), time.Since(start).Round(time.Second),
				cur.Progress.Done, cur.Progress.Total, j.Name, j.State)
			if j.Error != "" && j.State == model.NodeFailed {
				line += "  " + j.Error
			}
			fmt.Fprintln(w, line)
		}
	}
}

// flowRef reads "ID --context N" (the context also from $HYPHAE_CONTEXT).
func flowRef(cmd *cobra.Command, arg string, ctxFlag uint64) (wire.FlowRef, error) {
	id, err := strconv.ParseUint(arg, 10, 64)
	if err != nil || id == 0 {
		return wire.FlowRef{}, usage("flow id %q: want a number", arg)
	}
	ctxID, err := contextOrEnv(cmd, ctxFlag)
	if err != nil {
		return wire.FlowRef{}, err
	}
	return wire.FlowRef{Context: ctxID, ID: id}, nil
}

// flowCmd builds "flow VERB ID --context N" commands.
func flowCmd(use, short string, run func(cmd *cobra.Command, ref wire.FlowRef) error) *cobra.Command {
	var ctxID uint64
	cmd := &cobra.Command{
		Use:   use + " ID --context N",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := flowRef(cmd, args[0], ctxID)
			if err != nil {
				return err
			}
			return run(cmd, ref)
		},
	}
	addContextFlag(cmd, &ctxID, "context id (required; default $"+envContext+")")
	return cmd
}

func newFlowStart(g *globals) *cobra.Command {
	var asJSON bool
	cmd := flowCmd("start", "Start a created flow", func(cmd *cobra.Command, ref wire.FlowRef) error {
		var v wire.FlowView
		p := wire.FlowStartParams{FlowRef: ref, IdempotencyKey: idemKey(cmd)}
		if err := g.call(cmd.Context(), "flow.start", p, &v); err != nil {
			return err
		}
		if v.Deduplicated {
			noteDeduplicated(cmd.ErrOrStderr(), p.IdempotencyKey, fmt.Sprintf("flow %d", v.ID), v.ContentDiffers)
		}
		return showFlow(cmd.OutOrStdout(), &v, asJSON, false)
	})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the flow as JSON")
	addIdemFlag(cmd, "flow")
	return cmd
}

func newFlowStatus(g *globals) *cobra.Command {
	var asJSON, dot, mermaid bool
	cmd := flowCmd("status", "Draw a flow's DAG with each job's state, runner, attempt and duration",
		func(cmd *cobra.Command, ref wire.FlowRef) error {
			var v wire.FlowView
			if err := g.call(cmd.Context(), "flow.status", ref, &v); err != nil {
				return err
			}
			switch {
			case asJSON:
				return printJSON(cmd.OutOrStdout(), v)
			case dot:
				fmt.Fprint(cmd.OutOrStdout(), dotGraph(&v.FlowState))
			case mermaid:
				fmt.Fprint(cmd.OutOrStdout(), mermaidGraph(&v.FlowState))
			default:
				fmt.Fprint(cmd.OutOrStdout(), flowtext.Render(&v.FlowState))
			}
			return nil
		})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&dot, "dot", false, "draw the DAG in Graphviz dot (| dot -Tsvg > flow.svg)")
	cmd.Flags().BoolVar(&mermaid, "mermaid", false, "draw the DAG as a Mermaid flowchart (GitHub renders it in a ```mermaid block)")
	cmd.MarkFlagsMutuallyExclusive("json", "dot", "mermaid")
	return cmd
}

func newFlowWatch(g *globals) *cobra.Command {
	var asJSON bool
	cmd := flowCmd("watch", "Follow a flow live until it ends, redrawing its DAG as jobs move",
		func(cmd *cobra.Command, ref wire.FlowRef) error {
			var v wire.FlowView
			if err := g.call(cmd.Context(), "flow.status", ref, &v); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON { // progress on stderr, the ended flow on stdout
				out = cmd.ErrOrStderr()
			}
			tty := isTerminal(out)
			draw, logs := progressPrinter(out), newFlowLogs(g, out)
			if tty { // the redrawn tree, with the time since the watch began; logs would scroll it away
				start := time.Now()
				draw = func(_, cur *wire.FlowView) {
					fmt.Fprintf(out, "\033[H\033[2J%s(watching for %v)\n", flowtext.Render(&cur.FlowState), time.Since(start).Round(time.Second))
				}
				logs = nil
			}
			end, err := followFlowLogs(cmd.Context(), g, &v, draw, logs)
			if err != nil {
				return err
			}
			if asJSON {
				return showFlow(cmd.OutOrStdout(), end, true, true)
			}
			if !tty {
				fmt.Fprint(out, flowtext.Render(&end.FlowState))
			}
			return showFlow(io.Discard, end, false, true)
		})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the ended flow as JSON (progress goes to stderr)")
	return cmd
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newFlowCancel(g *globals) *cobra.Command {
	var asJSON bool
	cmd := flowCmd("cancel", "Stop a flow's running jobs and cancel the rest",
		func(cmd *cobra.Command, ref wire.FlowRef) error {
			var v wire.FlowView
			if err := g.call(cmd.Context(), "flow.cancel", ref, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "flow %d cancelled: %s\n", v.ID, flowtext.ProgressLine(&v.FlowState))
			return nil
		})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the flow as JSON")
	return cmd
}

func newFlowList(g *globals) *cobra.Command {
	var ctxID uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [CONTEXT]",
		Short: "List a context's flows",
		Args:  ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctxID, _, err := contextArgs(cmd, ctxID, args, 0)
			if err != nil {
				return err
			}
			var fs []wire.FlowSummary
			if err := g.call(cmd.Context(), "flow.list", map[string]any{"context": ctxID}, &fs); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), fs)
			}
			if len(fs) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "no flows in context %d (hyphae flow run FILE)\n", ctxID)
				return nil
			}
			printFlowTable(cmd.OutOrStdout(), fs)
			return nil
		},
	}
	addContextFlag(cmd, &ctxID, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printFlowTable prints flows a line each, under a header.
func printFlowTable(w io.Writer, fs []wire.FlowSummary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tDONE\tCREATED\tERROR")
	for _, f := range fs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d\t%s\t%s\n", f.ID, f.Name, f.Status, f.Progress.Done, f.Progress.Total,
			time.Unix(f.CreatedAt, 0).Format("2006-01-02 15:04"), oneLine(f.Error, 80))
	}
	tw.Flush()
}
