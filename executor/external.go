package executor

import "context"

// external reports whether queue:<t> of context id is left to an
// external worker: a runner record there with local: true declares one
// for t (seed 001; store.DeclaresExternal). Its jobs then wait for that
// worker instead of failing as a type nobody serves. The records are
// read only when a queue of a type this runner lacks holds jobs. When
// they cannot be read the queue is left alone until the next sweep.
func (r *Runner) external(ctx context.Context, id uint64, t string) bool {
	ok, err := r.st.Jobs.ExternalWorker(ctx, id, t)
	if err != nil {
		r.log.Warn("executor: runner records", "context", id, "err", err)
		return true
	}
	return ok
}
