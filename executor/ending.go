package executor

import (
	"maps"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// EndingLogLines is how many of its last log lines an ending hook gets.
const EndingLogLines = 50

// EndingHook is told of a job's end just before its final status is
// written, with the job as it will be written and the last EndingLogLines
// lines its Redis log will hold (a noop job has none). It runs on the
// job's goroutine and must not block. The written func it returns (nil
// for none) is called once the write is done, ok false when it failed
// (the store failed, or the attempt was superseded): then the job did not
// end as the hook was told.
type EndingHook func(ctxID uint64, job *model.RunnerJob, logs []string) (written func(ok bool))

// OnJobEnding registers fn to be called before the final write of every
// job that ends here after running (finished, or error without a retry):
// a component that reports the end elsewhere (the bridge sends a remote
// job's result home) starts doing so while the write is under way.
func (r *Runner) OnJobEnding(fn EndingHook) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ending = append(r.ending, fn)
}

// ended is attempt a's job as its end with status and out is written:
// what the ending hooks, then the OnJobDone hooks, are given (to read).
func (a *attempt) ended(status model.JobStatus, out outcome) *model.RunnerJob {
	job := *a.job
	job.ContextID, job.Attempt = a.ctxID, a.lease.Attempt
	job.Status, job.Error, job.Result, job.UpdatedAt = status, out.reason, out.result, time.Now().Unix()
	if out.files != "" {
		job.Extra = maps.Clone(job.Extra) // a.job's own is not changed
		job.SetFilesJSON(out.files)
	}
	return &job
}

// jobEnding calls the ending hooks for job, about to be written as ended,
// and returns what to call after the write.
func (r *Runner) jobEnding(ctxID uint64, job *model.RunnerJob, logs []string) func(ok bool) {
	r.mu.Lock()
	hooks := r.ending[:len(r.ending):len(r.ending)]
	r.mu.Unlock()
	if len(hooks) == 0 {
		return func(bool) {}
	}
	var after []func(bool)
	for _, h := range hooks {
		if w := h(ctxID, job, logs); w != nil {
			after = append(after, w)
		}
	}
	return func(ok bool) {
		for _, w := range after {
			w(ok)
		}
	}
}
