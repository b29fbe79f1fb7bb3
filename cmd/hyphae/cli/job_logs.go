package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newJobLogs(g *globals) *cobra.Command {
	var follow, stamps, asJSON bool
	var tail int
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "logs [CONTEXT] JOB",
		Short: "Print a job's output lines; -f follows until the job ends",
		Long: `Print a job's output lines; -f follows until the job ends.

A job sent to another agent (job run --to PEER_ID|any) is read from that agent,
which keeps its whole log, while it runs and after. When that agent cannot be
asked (not connected, no answer, the job gone there), the lines come from the
job's record here: the last 50, which its result brought home. A note on
stderr says so, and why.

Lines the job wrote on stderr start with "E| "; --timestamps puts the time
each line was written (UTC) before it. --json prints one JSON object per
line, {"ts", "stream", "line"}: stream is stdout, stderr or agent (the
agent's own "[hyphae]" notes); ts and stream are left out where they are
not known (lines a result brought home, or written by an older agent).

` + jobArgHelp,
		Example: `  hyphae job logs -f -c 1 job:1:7
  hyphae job logs -c 1 7 --tail 20 --timestamps
  hyphae job logs -c 1 job:1:7 --json
  hyphae job logs 1 job:1:7          # the older form, context first`,
		Args: ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, key, err := jobArgs(cmd, g, ctxFlag, args) // job_ref.go
			if err != nil {
				return err
			}
			if tail < 0 {
				return usage("--tail must be 0 (all) or more")
			}
			f := &logFollower{g: g, ctxID: id, key: key, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr(), tail: tail,
				show: logShow{stamps: stamps, json: asJSON}}
			return f.run(cmd.Context(), follow)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines until the job ends")
	cmd.Flags().IntVarP(&tail, "tail", "n", 0, "print only the last N lines there are now (then, with -f, the new ones); 0: all")
	cmd.Flags().BoolVarP(&stamps, "timestamps", "t", false, "put the time each line was written before it")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print a JSON object per line: {"ts", "stream", "line"}`)
	addContextFlag(cmd, &ctxFlag, contextUse)
	return cmd
}

// logFollower prints a job's log lines, following them with job.logs
// calls until the job ends.
type logFollower struct {
	g         *globals
	ctxID     uint64
	key       string
	out, errw io.Writer
	from      int64
	source    string          // where the last lines came from (LogsView.Source)
	note      string          // the last note printed
	tail      int             // print only the last tail lines of the first read (0: all)
	held      []wire.LogEntry // the first read's lines, kept until it is complete (with tail)
	show      logShow
	reader    metaLogs // asks for streams and times; plain lines from an older agent
}

// print prints lines, holding them back while the first read of a --tail
// is not complete; complete says there are no more lines now.
func (f *logFollower) print(lines []wire.LogEntry, complete bool) {
	if f.tail > 0 {
		f.held = append(f.held, lines...)
		if !complete {
			return
		}
		lines = f.held[max(0, len(f.held)-f.tail):]
		f.held, f.tail = nil, 0
	}
	for _, l := range lines {
		f.show.line(f.out, l)
	}
}

func (f *logFollower) run(ctx context.Context, follow bool) error {
	for {
		var lv wire.LogsView
		f.reader.g = f.g
		if err := f.reader.page(ctx, f.ctxID, f.key, f.from, &lv); err != nil {
			return err
		}
		if f.source == "runner" && lv.Source == "result" && f.from > 0 {
			// The runner's agent stopped answering: its indexes are not
			// the local copy's. Start that copy from its first line.
			f.from, f.source, f.held = 0, lv.Source, nil
			fmt.Fprintf(f.errw, "note: %s no longer answers (%s); the last lines %s's result brought home follow, some may repeat\n",
				lv.Runner, lv.Note, f.key)
			f.note = lv.Note
			continue
		}
		f.noteOnce(&lv)
		f.source = lv.Source
		f.print(entriesOf(&lv), !lv.More)
		f.from = lv.Next
		switch {
		case lv.More:
			continue
		case !follow || lv.Status == "finished" || lv.Status == "error":
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(f.pause()):
		}
	}
}

// pause is how long to wait before asking again: longer when each call
// asks another agent over the bus.
func (f *logFollower) pause() time.Duration {
	if f.source == "runner" {
		return 500 * time.Millisecond
	}
	return 200 * time.Millisecond
}

// noteOnce tells the user, on stderr, why a job sent away is not read
// from the agent running it (once per reason): its lines come only with
// its result, so that no lines (or a wait, with -f) are not taken for a
// fault.
func (f *logFollower) noteOnce(lv *wire.LogsView) {
	if lv.Note == "" || lv.Note == f.note {
		return
	}
	f.note = lv.Note
	verb, lines := "runs", "its last %d lines come home with its result"
	if lv.Status == "finished" || lv.Status == "error" {
		verb, lines = "ran", "these are the last %d lines its result brought home"
	}
	fmt.Fprintf(f.errw, "note: %s %s on %s, which cannot be read now (%s); "+lines+"\n",
		f.key, verb, orNone(lv.Runner), lv.Note, lv.ResultLines)
}

// orNone is s, or "no agent yet" when empty.
func orNone(s string) string {
	if s == "" {
		return "no agent yet"
	}
	return s
}
