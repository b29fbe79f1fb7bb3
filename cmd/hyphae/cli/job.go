package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newJob(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Run jobs here or on another agent; status, logs, stop",
	}
	cmd.AddCommand(newJobRun(g), newJobStatus(g), newJobLogs(g), newJobStop(g), newJobList(g), newJobRetry(g),
		newJobFiles(g), newJobGet(g)) // job_files.go
	return cmd
}

type jobRunFlags struct {
	to, typ, script, file, name string
	ctx                         uint64
	env                         []string
	timeout                     time.Duration
	retries, memoryMB           int64
	network                     string
	cpu                         float64
	wait, asJSON                bool
	at                          string        // --at: RFC 3339 or unix seconds
	in                          time.Duration // --in: from now
	typeSet                     bool          // --type was given (else inferred from --file)
	idemKey                     string        // --idempotency-key
	outputs                     []string      // --output (repeatable)
	inputs                      []string      // --input FILE[:NAME] (repeatable)

	wire.KeyedParams // --concurrency-key, --max-in-flight
}

func newJobRun(g *globals) *cobra.Command {
	f := &jobRunFlags{}
	cmd := &cobra.Command{
		Use:   "run --context N --type T (--script S | --file F)",
		Short: "Submit a job; with --wait, follow it and print its result",
		Long: `Submit a job into context N, to this agent (--to self), to another agent
(--to PEER_ID; that agent's context N must grant you executor; or --to
runner:<id>, the agent a runner record of context N here names: see hyphae
runner create) or to the least loaded runner registered in context N that is
up and runs the script type, else this agent (--to any; a peer that merely
announces itself never gets a job: register it with hyphae runner create N
--peer PEER_ID). With --wait
it prints status changes (stderr) and the result; the exit code is 0 when the
job finished, 1 when it failed or was refused (the reason on stderr). A job
for an agent that is not up waits in this agent's outbox until it is, up to
bus.timeout (a note on stderr says so).`,
		Example: `  hyphae job run --context 1 --type sh --script 'echo "n=42" >> "$HYPHAE_RESULT"' --wait
  hyphae job run --to 12D3KooW... --context 2 --type python --file job.py --wait --json
  hyphae job run --to runner:1 --context 2 --script 'uname -a' --wait
  hyphae job run --context 1 --file backup.py --in 10m
  hyphae job run --context 1 --script 'echo hi' --at 2026-12-24T18:00:00+01:00
  hyphae job run --context 1 --file sync-device.sh --concurrency-key device-42
  hyphae job run --to nas --context 1 --script 'pg_dump db | gzip > db.sql.gz' --output db.sql.gz --wait`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.typeSet = cmd.Flags().Changed("type")
			id, err := contextOrEnv(cmd, f.ctx)
			if err != nil {
				return err
			}
			f.ctx = id
			return jobRun(cmd, g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.to, "to", "self", "where to run: self, a peer ID, runner:<id> (a runner record of --context here), or any (an agent up that runs the type)")
	addContextFlag(cmd, &f.ctx, "context id (required; default $"+envContext+")")
	fl.StringVar(&f.typ, "type", "sh", "script type: sh, bash, python, or one the runner configures (default: from --file's extension, .py python, .sh sh, .bash bash, .<type> a type the agent serves; else sh)")
	fl.StringVar(&f.script, "script", "", "the script text")
	fl.StringVar(&f.file, "file", "", "read the script from this file")
	fl.StringVar(&f.name, "name", "", "a name for the job")
	fl.StringArrayVar(&f.env, "env", nil, "environment variable K=V (repeatable)")
	fl.DurationVar(&f.timeout, "timeout", 0, "kill the job after this long (default: the runner's)")
	fl.Int64Var(&f.retries, "retries", 0, "extra attempts when the job fails")
	fl.Int64Var(&f.memoryMB, "memory-mb", 0, "memory limit in MiB (where the runner has cgroups; see hyphae info)")
	fl.StringVar(&f.network, "network", "", "none: run the job contained with only loopback (no network); default: the host's")
	fl.Float64Var(&f.cpu, "cpu", 0, "CPU limit in cores, e.g. 0.5 (where the runner has cgroups)")
	fl.BoolVar(&f.wait, "wait", false, "wait for the job to end and print its result")
	fl.StringVar(&f.at, "at", "", "start no earlier than this time: RFC 3339 (2026-12-24T18:00:00Z) or unix seconds; kept in Redis, survives restarts")
	fl.DurationVar(&f.in, "in", 0, "start no earlier than this long from now, e.g. 10m or 2h30m")
	fl.BoolVar(&f.asJSON, "json", false, "print the job as JSON (with status, result, error)")
	fl.StringVar(&f.idemKey, idemFlag, "", "submit at most once per key: a second job run with the same key within the retention window "+
		"(idempotency.retention, default 24h) prints the first job instead of running again (see docs/idempotency.md)")
	fl.StringVar(&f.ConcurrencyKey, "concurrency-key", "", "jobs of the context with this key run one after another, in submission order (see docs/flow-control.md)")
	fl.Int64Var(&f.MaxInFlight, "max-in-flight", 0, "with --concurrency-key: how many jobs of the key may run at once (default 1)")
	fl.StringArrayVar(&f.inputs, "input", nil, "ship this local file into the job's in/ folder, as FILE or FILE:NAME (repeatable; HYPHAE_IN_DIR names the folder)")
	fl.StringArrayVar(&f.outputs, "output", nil, "a path or glob under the job's directory whose files become the job's files when it finishes (repeatable; hyphae job files, job get)")
	return cmd
}

func jobRun(cmd *cobra.Command, g *globals, f *jobRunFlags) error {
	p, err := f.params()
	if err != nil {
		return err
	}
	if f.file != "" && !f.typeSet {
		p.Type = inferType(f.file, servedTypes(cmd.Context(), g))
	}
	if p.Inputs, err = uploadInputs(cmd, g, f.inputs); err != nil { // job_files.go
		return err
	}
	var j wire.JobView
	if err := g.call(cmd.Context(), "job.run", p, &j); err != nil {
		return err
	}
	if j.Deduplicated {
		noteDeduplicated(cmd.ErrOrStderr(), f.idemKey, j.Key, j.ContentDiffers)
	}
	switch {
	case j.RunAt != 0 && j.Status == "dispatched": // delayed: sent (and routed) when due
	case j.Runner != "":
		noteIfAway(cmd.Context(), g, j.Runner, cmd.ErrOrStderr())
	case f.to == wire.ToAny:
		fmt.Fprintf(cmd.ErrOrStderr(), "note: no registered runner of type %q is up; the job waits in the outbox for one, up to bus.timeout (default 10m)\n", f.typ)
	}
	if f.wait {
		jw, err := waitJob(cmd.Context(), g, j.ContextID, j.Key, cmd.ErrOrStderr(), !f.asJSON)
		if err != nil {
			return err
		}
		j = *jw
	}
	if f.asJSON {
		if err := printJSON(cmd.OutOrStdout(), j); err != nil {
			return err
		}
	} else {
		printJob(cmd.OutOrStdout(), &j, f.ctx)
		if !f.wait {
			fmt.Fprintf(cmd.OutOrStdout(), "  follow: %s\n", followHint(g, j.ContextID, j.Key))
		}
	}
	if f.wait && j.Status != "finished" {
		return failed("job %s %s: %s", j.Key, j.Status, j.Error)
	}
	return nil
}

// noteIfAway tells the user, on w, when the agent a job was sent to is not
// up: the job then waits in the outbox for it (until bus.timeout), which
// would otherwise look like a hang.
func noteIfAway(ctx context.Context, g *globals, peerID string, w io.Writer) {
	var ps []wire.PeerView
	if err := g.call(ctx, "peer.list", nil, &ps); err != nil {
		return
	}
	why := ""
	for _, p := range ps {
		if p.PeerID != peerID {
			continue
		}
		if p.State == "up" {
			return
		}
		why = fmt.Sprintf("is %s (last seen %s)", p.State, seen(&p))
	}
	if why == "" { // not a peer: this agent itself (sent to any, no other runs the type), or unknown
		var self wire.InfoView
		if err := g.call(ctx, "node.info", nil, &self); err == nil && self.PeerID == peerID {
			return
		}
		why = "is not among the agents this one knows (hyphae peers)"
	}
	fmt.Fprintf(w, "note: %s %s; the job waits in the outbox for it, up to bus.timeout (default 10m)\n", peerID, why)
}

func (f *jobRunFlags) params() (*wire.JobRunParams, error) {
	script := f.script
	if f.file != "" {
		if script != "" {
			return nil, usage("give --script or --file, not both")
		}
		b, err := os.ReadFile(f.file)
		if err != nil {
			return nil, usage("--file: %v", err)
		}
		script = string(b)
	}
	if script == "" {
		return nil, usage("nothing to run: give --script '...' or --file F")
	}
	env := map[string]string{}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usage("--env %q: want K=V", kv)
		}
		env[k] = v
	}
	p := &wire.JobRunParams{To: f.to, Context: f.ctx, Type: f.typ, Script: script, Name: f.name,
		Env: env, Timeout: int64(f.timeout.Round(time.Second) / time.Second), Retries: f.retries,
		MemoryMB: f.memoryMB, CPU: f.cpu, Network: f.network}
	p.IdempotencyKey = f.idemKey
	p.Outputs = f.outputs
	p.KeyedParams = f.KeyedParams
	p.Traceparent = callerTrace() // trace_env.go
	if err := f.when(p, time.Now()); err != nil {
		return nil, err
	}
	return p, nil
}

// waitJob follows a job until it ends; verbose, it reports to w the
// status changes, the log lines and a runner that stops answering
// (wait_progress.go).
func waitJob(ctx context.Context, g *globals, ctxID uint64, key string, w io.Writer, verbose bool) (*wire.JobView, error) {
	progress := newWaitProgress(g, w, ctxID, key)
	if verbose { // the state now, not a second later when the first wait returns
		var j wire.JobView
		if err := g.call(ctx, "job.load", wire.JobRef{Context: ctxID, Key: key}, &j); err == nil {
			progress.update(ctx, &j)
		}
	}
	for {
		var j wire.JobView
		err := g.call(ctx, "job.wait", map[string]any{"context": ctxID, "key": key, "timeout": 1}, &j)
		if err != nil {
			return nil, err
		}
		if verbose {
			progress.update(ctx, &j)
		}
		if j.Status == "finished" || j.Status == "error" {
			return &j, nil
		}
		if ctx.Err() != nil {
			return &j, ctx.Err()
		}
	}
}

// printJob prints a job for people. For a job sent to another agent (one
// with a runner) remoteCtx, when known, is the context it went to there:
// the key and context on the first line are this agent's own record of it
// (what job status and job logs take), in a local context whose id may
// differ.
func printJob(w io.Writer, j *wire.JobView, remoteCtx uint64) {
	printJobHead(w, j)
	printJobBody(w, j, remoteCtx)
}

// printJobHead is a job's first line: key, context, state, attempt.
func printJobHead(w io.Writer, j *wire.JobView) {
	fmt.Fprintf(w, "job %s in context %d: %s", j.Key, j.ContextID, shownState(j))
	if j.Attempt > 1 {
		fmt.Fprintf(w, " (attempt %d)", j.Attempt)
	}
	fmt.Fprintln(w)
}

// printJobBody is what follows: runner, reach, error and result.
func printJobBody(w io.Writer, j *wire.JobView, remoteCtx uint64) {
	if j.Runner != "" { // sent to another agent (it may have refused it: see error)
		fmt.Fprintf(w, "  runner: %s", j.Runner)
		if remoteCtx != 0 {
			fmt.Fprintf(w, " (its context %d)", remoteCtx)
		}
		fmt.Fprintln(w)
	}
	printReach(w, j)
	if j.RunAt != 0 && (j.Status == "dispatched" || j.Status == "waiting_for_prerequisites") {
		fmt.Fprintf(w, "  runs at: %s\n", time.UnixMilli(int64(j.RunAt*1000)).Format(time.RFC3339))
	}
	if j.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", j.Error)
	}
	keys := make([]string, 0, len(j.Result))
	for k := range j.Result {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := j.Result[k]
		if k == "stdout" {
			v = strings.TrimRight(v, "\n")
			if strings.Contains(v, "\n") {
				v = "\n    " + strings.ReplaceAll(v, "\n", "\n    ")
			}
		}
		fmt.Fprintf(w, "  %s = %s\n", k, v)
	}
	printJobFiles(w, j) // job_files.go
}

func parseCtx(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usage("context id %q: want a number", s)
	}
	return id, nil
}
