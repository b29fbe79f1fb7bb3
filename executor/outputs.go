package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/files"
)

// Files carries files between jobs for the runner (docs/design.md, "Files
// between jobs"; node/jobfiles is the agent's). Config.Files nil: a job
// with outputs or inputs ends error, saying so.
type Files interface {
	// Inputs puts job's input sets into dir's in/ before its script runs
	// and returns the variables it adds to the job's environment
	// ("NAME=value": HYPHAE_IN_<JOB>_DIR).
	Inputs(ctx context.Context, ctxID uint64, jobKey string, job *model.RunnerJob, dir string) ([]string, error)
	// Outputs records the files job's outputs match in dir, held for the
	// job, and returns them as the JSON of its files field ("" for none).
	Outputs(ctx context.Context, ctxID uint64, jobKey string, job *model.RunnerJob, dir string) (string, error)
}

// errOutputs marks an attempt whose outputs were refused: it ends error
// without a retry.
var errOutputs = errors.New("outputs refused")

// errNoFiles is why a job with outputs or inputs cannot run here.
const errNoFiles = "this runner does not carry files between jobs"

// takeInputs puts the attempt's inputs into dir and appends their
// variables to env; ok false with the outcome that ends the attempt.
func (r *Runner) takeInputs(a *attempt, dir string, env []string, c containment) ([]string, outcome, bool) {
	if a.job.InputsJSON() == "" {
		return env, outcome{}, true
	}
	fail := func(reason string) ([]string, outcome, bool) {
		return env, outcome{result: map[string]string{}, reason: reason}, false
	}
	if r.cfg.Files == nil {
		return fail("inputs: " + errNoFiles)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail("inputs: prepare job directory: " + err.Error())
	}
	vars, err := r.cfg.Files.Inputs(a.ctx, a.ctxID, a.key, a.job, dir)
	if err != nil {
		return fail("inputs: " + err.Error())
	}
	if err := r.handInputs(a.ctxID, dir, c); err != nil {
		return fail("inputs: hand them to the job's user: " + err.Error())
	}
	return append(env, vars...), outcome{}, true
}

// handInputs gives the in/ tree to the user the job runs as, when that is
// not the agent's (contained, or runner.user): the agent wrote it.
func (r *Runner) handInputs(ctxID uint64, dir string, c containment) error {
	uid, gid, ok := -1, -1, false
	switch {
	case c.on:
		uid, gid, ok = r.box.IDs(ctxID)
	case r.user != nil:
		uid, gid, ok = int(r.user.cred.Uid), int(r.user.cred.Gid), true
	}
	if !ok {
		return nil
	}
	return filepath.WalkDir(filepath.Join(dir, files.InDir), func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// keepOutputs records a successful attempt's outputs as its files; a bad
// name, a file past the limits or a full store ends it error instead.
func (r *Runner) keepOutputs(a *attempt, dir string, out outcome) outcome {
	if out.reason != "" || a.job.Extra[model.ExtraOutputs] == "" {
		return out
	}
	if r.cfg.Files == nil {
		out.reason, out.cause = "outputs: "+errNoFiles, errOutputs
		return out
	}
	v, err := r.cfg.Files.Outputs(a.ctx, a.ctxID, a.key, a.job, dir)
	if err != nil {
		// Not retried: the same files would be refused again.
		out.reason, out.cause = fmt.Sprintf("outputs: %v", err), errOutputs
		return out
	}
	out.files = v
	return out
}
