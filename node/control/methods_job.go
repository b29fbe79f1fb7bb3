package control

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// RunJob is the API's job.run (Node.RunJob calls it in process): it
// submits a job to this agent's runner or to another agent and, with
// p.Wait, waits for its end. Bad parameters are *api.Error values.
func (h *Handlers) RunJob(ctx context.Context, p wire.JobRunParams) (*wire.JobView, error) {
	j, w, err := h.jobRun(ctx, p, true)
	if err != nil || p.Wait == 0 {
		return j, err
	}
	var wait waitFunc = h.Store.Jobs.WaitNewJob
	if j.Deduplicated { // the first submission's job: it may have ended already
		wait = h.Store.Jobs.WaitJob
	}
	if w != nil { // a job sent away: its end comes through this agent's bridge
		defer w.Close()
		wait = func(ctx context.Context, _ uint64, _ string) (*model.RunnerJob, error) { return w.Wait(ctx) }
	}
	v, err := h.jobWait(ctx, wire.JobRef{Context: j.ContextID, Key: j.Key}, time.Duration(p.Wait)*time.Second, wait)
	return dedupOnto(j, v, err)
}

func (h *Handlers) registerJobMethods() {
	h.registerJobRetryMethods()
	h.registerFilesMethods()
	api.RegisterShapes(h.table, "job.run", "Submit a job to this agent's runner (to=self), to another agent (to=peer ID, or runner:<id>, a runner record of the context here) or to the least loaded runner registered in the context that is up and runs its type, else this agent (to=any); with wait=N, block up to N seconds for its end and return it. "+
		"The seed's {job:{…}, secret} queues the job here, in its context_id.",
		api.Alt(h.RunJob), api.Alt(h.seedJobRun))
	api.RegisterShapes(h.table, "job.create", "Store a job without running it: {context, type, script, …}, "+
		"or the seed's {context_id, job:{id, caller_id, script, script_type, dependends, …}} (a chosen id is kept).",
		api.Alt(func(ctx context.Context, p wire.JobRunParams) (*wire.JobView, error) {
			j, _, err := h.jobRun(ctx, p, false)
			return j, err
		}),
		api.Alt(h.seedJobCreate))
	api.RegisterShapes(h.table, "job.load", "Show a job: {context, key}, or the seed's {context_id, caller_id, id}.",
		api.Alt(h.jobLoad), api.Alt(h.seedJobLoad))
	api.Register(h.table, "job.status", "A job's status.",
		func(ctx context.Context, p wire.JobRef) (map[string]string, error) {
			j, err := h.jobLoad(ctx, p)
			if err != nil {
				return nil, err
			}
			return map[string]string{"key": j.Key, "status": j.Status, "error": j.Error}, nil
		})
	api.Register(h.table, "job.result", "A job's result map.",
		func(ctx context.Context, p wire.JobRef) (map[string]string, error) {
			j, err := h.jobLoad(ctx, p)
			if err != nil {
				return nil, err
			}
			return j.Result, nil
		})
	api.Register(h.table, "job.wait", "Block until the job ends (or timeout seconds pass) and return it.",
		func(ctx context.Context, p struct {
			wire.JobRef
			Timeout int64 `json:"timeout,omitempty"`
		}) (*wire.JobView, error) {
			return h.jobWait(ctx, p.JobRef, time.Duration(p.Timeout)*time.Second, h.Store.Jobs.WaitJob)
		})
	api.Register(h.table, "job.list", "List a context's jobs, newest first: all of them, "+
		"or those with `status` (dispatched, waiting_for_prerequisites, started, error, finished), at most `limit` (0: all).",
		func(ctx context.Context, p wire.JobListParams) ([]*wire.JobView, error) {
			return h.jobList(ctx, p)
		})
}

// jobList lists a context's jobs, newest first (created_at, then id).
func (h *Handlers) jobList(ctx context.Context, p wire.JobListParams) ([]*wire.JobView, error) {
	if p.Status != "" && !model.JobStatus(p.Status).Valid() {
		return nil, api.InvalidParams("status", "%q is not a job status (dispatched, waiting_for_prerequisites, started, error, finished)", p.Status)
	}
	if p.Limit < 0 {
		return nil, api.InvalidParams("limit", "must not be negative")
	}
	js, err := h.Store.Jobs.ListJobs(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	out := make([]*wire.JobView, 0, len(js))
	for _, j := range js {
		if p.Status == "" || string(j.Status) == p.Status {
			out = append(out, jobView(j))
		}
	}
	slices.SortFunc(out, func(a, b *wire.JobView) int {
		return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(b.ID, a.ID), cmp.Compare(b.CallerID, a.CallerID))
	})
	if p.Limit > 0 && len(out) > p.Limit {
		out = out[:p.Limit]
	}
	return out, nil
}

// jobRunHere stores job p for this agent's runner (run: and queues it).
func (h *Handlers) jobRunHere(ctx context.Context, p JobRunParams, run bool) (*wire.JobView, error) {
	if err := h.Store.Registry.CheckContextID(p.Context); err != nil {
		return nil, api.InvalidParams("context", "%v", err)
	}
	if _, err := h.Store.Registry.LoadContext(ctx, p.Context); err != nil {
		return nil, h.contextErr(err, p.Context)
	}
	if h.Draining() && run {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new jobs")
	}
	j := &model.RunnerJob{CallerID: h.Self.ID, ContextID: p.Context, Name: p.Name, Script: p.Script,
		ScriptType: p.Type, Timeout: p.Timeout, Retries: p.Retries, EnvVars: p.Env, MemoryMB: p.MemoryMB, CPU: p.CPU}
	j.ID = p.id
	j.SetNetwork(p.Network)
	j.SetIdempotencyKey(p.IdempotencyKey)
	j.SetTraceID(p.trace)
	j.SetConcurrency(p.Concurrency())
	j.SetOutputs(p.Outputs)
	j.SetInputsJSON(p.inputs)
	var err error
	if at, ok := runAt(p.JobRunParams, time.Now()); ok {
		err = h.enqueueAt(ctx, j, at, run)
	} else if run {
		err = h.Store.Jobs.EnqueueJob(ctx, j)
	} else {
		err = h.Store.Jobs.SaveJob(ctx, j)
	}
	if err != nil {
		return nil, err
	}
	return jobView(j), nil
}

func checkJobParams(p wire.JobRunParams) error {
	switch {
	case p.Context == 0:
		return api.InvalidParams("context", "required: the context id (1 or more)")
	case p.Type == "":
		return api.InvalidParams("type", "required: a script type such as sh, bash or python")
	case p.Script == "":
		return api.InvalidParams("script", "required: the script to run")
	case p.Timeout < 0:
		return api.InvalidParams("timeout", "must not be negative")
	case p.Retries < 0:
		return api.InvalidParams("retries", "must not be negative")
	case p.MemoryMB < 0 || p.MemoryMB > flowfile.MaxMemoryMB:
		return api.InvalidParams("memory_mb", "MiB from 1 to %d, or 0 for no limit", flowfile.MaxMemoryMB)
	case p.CPU != 0 && !(p.CPU >= flowfile.MinCPU && p.CPU <= flowfile.MaxCPU):
		return api.InvalidParams("cpu", "cores from %g to %d, such as 0.5 or 2, or 0 for no limit", flowfile.MinCPU, flowfile.MaxCPU)
	case model.CheckNetwork(p.Network) != nil:
		return api.InvalidParams("network", "none (only loopback) or host (the default)")
	case p.Wait < 0 || p.Wait > 3600:
		return api.InvalidParams("wait", "seconds to wait for the job's end: 0 (do not wait) to 3600")
	}
	if err := checkKeyed(p.KeyedParams); err != nil {
		return err
	}
	if err := checkOutputs(p.Outputs); err != nil {
		return err
	}
	return checkJobAt(p)
}

func (h *Handlers) jobLoad(ctx context.Context, p wire.JobRef) (*wire.JobView, error) {
	if _, _, err := store.ParseJobKey(p.Key); err != nil {
		return nil, api.InvalidParams("key", "%v", err)
	}
	j, err := h.Store.Jobs.LoadJobKey(ctx, p.Context, p.Key)
	if err != nil {
		return nil, h.notFound(ctx, err, p.Context, p.Key)
	}
	return jobView(j), nil
}

// waitFunc waits for a job's end (store.WaitJob and its kin).
type waitFunc func(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)

// jobWait waits up to d (at most an hour) for job p to end, with wait, and
// returns it, as it is then if the wait runs out.
func (h *Handlers) jobWait(ctx context.Context, p wire.JobRef, d time.Duration, wait waitFunc) (*wire.JobView, error) {
	if _, _, err := store.ParseJobKey(p.Key); err != nil {
		return nil, api.InvalidParams("key", "%v", err)
	}
	if d <= 0 || d > time.Hour {
		d = time.Hour
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	j, err := wait(wctx, p.Context, p.Key)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, h.notFound(ctx, err, p.Context, p.Key)
	}
	if j == nil { // the wait ran out: answer with the job as it is now
		if j, err = h.Store.Jobs.LoadJobKey(ctx, p.Context, p.Key); err != nil {
			return nil, h.notFound(ctx, err, p.Context, p.Key)
		}
	}
	return jobView(j), nil
}
