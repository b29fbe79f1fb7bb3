package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hyphae-run/hyphae/context/jobdir"
	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor/sandbox"
)

// scriptSpec is one script to run, whatever its source (job or hero job).
type scriptSpec struct {
	ctxID   uint64 // 0 = hero job: the log goes to output.log only
	logKey  string // job key for the Redis log
	typ     string
	script  string
	dir     string
	env     []string
	notes   []string // logged before the script runs
	timeout time.Duration
	limits  jobLimits
	contain containment
}

// execute runs a job attempt's script in its job directory.
func (r *Runner) execute(a *attempt) outcome {
	dir := r.jobDir(a.ctxID, a.key, a.lease.Attempt)
	env, notes := r.jobEnv(a.ctx, a, dir)
	if a.lease.Attempt > 1 {
		notes = append([]string{fmt.Sprintf("attempt %d", a.lease.Attempt)}, notes...)
	}
	c := r.containFor(a.ctx, a)
	env, out, ok := r.takeInputs(a, dir, env, c) // files between jobs (outputs.go)
	if !ok {
		return out
	}
	out = r.runScript(a.ctx, scriptSpec{ctxID: a.ctxID, logKey: a.key, typ: a.typ, script: a.job.Script,
		dir: dir, env: env, notes: notes, timeout: r.timeout(a.job),
		limits: r.limitsFor(a.job, c), contain: c})
	return r.keepOutputs(a, dir, out)
}

// runScript writes the script into its directory, runs it and collects
// the outcome; every log line is flushed when it returns.
func (r *Runner) runScript(ctx context.Context, s scriptSpec) outcome {
	in := r.types[s.typ]
	if in.noop {
		return noopOutcome()
	}
	file, err := writeScript(s.dir, in.ext, s.script)
	if err != nil {
		return outcome{result: map[string]string{}, reason: "prepare job directory: " + err.Error()}
	}
	if !s.contain.on {
		if err := r.handOver(s.dir, file); err != nil {
			return outcome{result: map[string]string{}, reason: "prepare job directory for " + r.cfg.User + ": " + err.Error()}
		}
	}
	if err := r.writeEventFile(s.dir, s.env); err != nil {
		return outcome{result: map[string]string{}, reason: "write the event file: " + err.Error()}
	}
	argv, err := in.command(r.python, file)
	if err != nil {
		return outcome{result: map[string]string{}, reason: err.Error()}
	}
	if s.contain.on {
		if out, ok := r.prepareContained(s, in, argv); !ok {
			return out
		}
	}
	logs := r.newLogSink(s.ctxID, s.logKey, s.dir)
	defer logs.Close()
	for _, n := range s.notes {
		logs.Line("[hyphae] " + n)
	}
	spec, warnings, err := r.procSpec(s, argv)
	for _, w := range warnings {
		logs.Line("[hyphae] warning: " + w)
	}
	if err != nil {
		reason := "create the job's cgroup: " + err.Error()
		logs.Line("[hyphae] " + reason)
		return outcome{result: map[string]string{}, reason: reason, logs: logs.Tail()}
	}
	capt := newCapture(r.cfg.StdoutCap, logs.Stdout)
	capt.errLine = logs.Stderr
	out := r.judge(runProcess(ctx, spec, capt), spec, capt, logs)
	if len(warnings) > 0 {
		out.result[keyLimitWarnings] = strings.Join(warnings, "; ")
	}
	out.logs = logs.Tail()
	return out
}

// procSpec is the process of the script's run, in a cgroup of its own
// where this runner has cgroups; warnings name the limits the job asked
// for that are not enforced here (it runs without them).
func (r *Runner) procSpec(s scriptSpec, argv []string) (procSpec, []string, error) {
	spec := procSpec{argv: argv, dir: s.dir, env: s.env, timeout: s.timeout, grace: r.cfg.KillGrace,
		stdin: r.devNull, limits: s.limits}
	if s.contain.on {
		spec.contain = &sandbox.Job{Dir: s.dir, Context: s.ctxID, NoNet: s.contain.noNet}
		spec.box = r.box
	} else if r.user != nil {
		spec.cred = r.user.cred
	}
	if r.cg == nil {
		var warnings []string
		why := " not enforced: this runner has no cgroups (" + r.Isolation().Note + ")"
		for _, ctl := range s.limits.asked() {
			warnings = append(warnings, s.limits.describe(ctl)+why)
		}
		return spec, warnings, nil
	}
	cg, warnings, err := r.cg.newJob(jobCgroupName(s.ctxID, s.dir), s.limits)
	spec.cg = cg
	return spec, warnings, err
}

// noopOutcome is the success of the noop type, which runs nothing.
func noopOutcome() outcome {
	return outcome{result: map[string]string{keyExitCode: "0", keyStdout: ""}}
}

// judge turns a finished process into an outcome: the result map, and the
// reason when it failed.
func (r *Runner) judge(res procResult, spec procSpec, capt *capture, logs *logSink) outcome {
	kv, bad := readResult(spec.dir)
	for _, b := range bad {
		logs.Line("[hyphae] result file " + b)
	}
	if len(bad) > 0 {
		kv[keyWarnings] = describeBad(bad)
	}
	kv[keyStdout] = capt.Stdout()
	kv[keyExitCode] = strconv.Itoa(res.exitCode)
	o := outcome{result: kv, cause: res.cause}
	switch {
	case res.startErr != nil:
		o.reason = fmt.Sprintf("start %s: %v", filepath.Base(spec.argv[0]), res.startErr)
	case res.cause != nil:
		o.reason = causeReason(res.cause, spec.timeout)
	case res.oomKills > 0 && !res.state.Success():
		o.reason = oomReason(spec.limits.memoryMB, res.state, capt.LastErr())
	case !res.state.Success():
		o.reason = describeExit(res.state, capt.LastErr())
	case res.oomKills > 0: // a child was killed, the job went on and succeeded
		kv[keyLimitWarnings] = fmt.Sprintf("the kernel killed %d process(es) of the job for going over memory_mb %d",
			res.oomKills, spec.limits.memoryMB)
		logs.Line("[hyphae] warning: " + kv[keyLimitWarnings])
	}
	if o.reason != "" {
		logs.Line("[hyphae] " + o.reason)
	}
	return o
}

// oomReason explains a job that failed after the kernel killed its
// processes for going over its memory limit.
func oomReason(memoryMB int64, ps *os.ProcessState, lastErr string) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return fmt.Sprintf("out of memory: the job went over memory_mb %d and the kernel killed it", memoryMB)
	}
	return fmt.Sprintf("out of memory: the kernel killed a process of the job for going over memory_mb %d (%s)",
		memoryMB, describeExit(ps, lastErr))
}

func causeReason(cause error, timeout time.Duration) string {
	switch {
	case errors.Is(cause, errTimeout):
		return "timeout after " + seconds(timeout)
	case errors.Is(cause, errStopped):
		return reasonStopped
	case errors.Is(cause, errDrained):
		return reasonDrained
	}
	return cause.Error()
}

// seconds formats d as "Ns" when it is whole seconds.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// maxTimeout caps job timeouts (and keeps the conversion from overflowing).
const maxTimeout = 10 * 365 * 24 * time.Hour

func (r *Runner) timeout(j *model.RunnerJob) time.Duration {
	if j.Timeout > 0 {
		return time.Duration(min(j.Timeout, int64(maxTimeout/time.Second))) * time.Second
	}
	return r.cfg.DefaultTimeout
}

// jobDir is <DataDir>/contexts/<N>/jobs/<caller>-<id>-<attempt> (jobdirs.go).
func (r *Runner) jobDir(ctxID uint64, key string, attempt int64) string {
	return filepath.Join(JobsDir(r.cfg.DataDir, ctxID), jobDirName(key, attempt))
}

// safeName keeps letters, digits, '-' and '_' (jobdir.SafeName).
func safeName(s string) string { return jobdir.SafeName(s) }

// writeScript creates dir (dropping a stale result file) and writes the
// script into it; it returns the script's path.
func writeScript(dir, ext, script string) (string, error) {
	err := os.Mkdir(dir, 0o700) // one syscall in the common case
	if errors.Is(err, fs.ErrNotExist) {
		err = os.MkdirAll(dir, 0o700)
	}
	switch {
	case errors.Is(err, fs.ErrExist): // a re-run in the same directory: drop the old result
		if err := os.Remove(resultPath(dir)); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	case err != nil:
		return "", err
	}
	file := filepath.Join(dir, "script"+ext)
	if err := os.WriteFile(file, []byte(script), 0o700); err != nil {
		return "", err
	}
	return file, nil
}
