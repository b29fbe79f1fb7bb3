package control

import (
	"context"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// JobRunParams is a job.run or job.create on its way through jobRun's
// steps: the caller's params and what the steps decided for them.
type JobRunParams struct {
	wire.JobRunParams
	trace  string // the job's traceparent (adoptTrace)
	inputs string // the job's inputs field (job_inputs.go)
	id     uint64 // the job's id, chosen for its idempotency record (0: allocate)
}

// concurrency is the job's model.Concurrency.
func (p JobRunParams) concurrency() model.Concurrency { return p.Concurrency() }

// jobRun stores job in (run: and sets it going), one step after another:
// check the params, give the job its trace and wrap the rest in the
// submit span, resolve a runner:<id> target, claim the idempotency key,
// then place the job here or send it away, and settle the key's claim. A
// job sent to another agent with in.Wait comes with a watch on its end
// (the caller closes it).
func (h *Handlers) jobRun(ctx context.Context, in wire.JobRunParams, run bool) (*wire.JobView, *store.EndWatch, error) {
	if err := checkJobRun(in, run); err != nil {
		return nil, nil, err
	}
	tp, err := adoptTrace(in.TraceParams)
	if err != nil {
		return nil, nil, err
	}
	p := JobRunParams{JobRunParams: in, trace: tp}
	if p.inputs, err = h.inputsOf(in.Inputs); err != nil {
		return nil, nil, err
	}
	span := h.Tracer.BeginSubmit(tp, in.Caller(), in.Context, "")
	v, w, err := h.submitJob(ctx, p, run)
	if v != nil {
		span.SetKey(v.Key)
	}
	span.End(err)
	return v, w, err
}

// checkJobRun refuses bad params, and a wait on a job.create.
func checkJobRun(p wire.JobRunParams, run bool) error {
	if err := checkJobParams(p); err != nil {
		return err
	}
	if p.Wait != 0 && !run {
		return api.InvalidParams("wait", "job.create does not run the job: nothing to wait for")
	}
	return nil
}

// submitJob is jobRun's steps inside the submit span.
func (h *Handlers) submitJob(ctx context.Context, p JobRunParams, run bool) (*wire.JobView, *store.EndWatch, error) {
	if err := h.resolveRunner(ctx, &p); err != nil {
		return nil, nil, err
	}
	claim, dup, err := h.claimJobKey(ctx, &p)
	if err != nil {
		return nil, nil, err
	}
	if dup != nil {
		h.dropUploads(p.Inputs) // job_inputs.go
		v, err := h.duplicateJob(ctx, dup)
		return v, nil, err
	}
	v, w, err := h.placeJob(ctx, p, run)
	if err != nil {
		claim.Release(ctx)
		return nil, nil, err
	}
	if err := h.adoptInputs(v, p.Inputs); err != nil {
		if w != nil {
			w.Close()
		}
		return nil, nil, err
	}
	if claim != nil {
		claim.Done(ctx, v.Key)
		v.IdempotencyKey = p.IdempotencyKey
	}
	return v, w, nil
}

// resolveRunner turns a runner:<id> target into the peer ID its record
// names (or self), and a peer's name into its peer ID, once, at submission.
func (h *Handlers) resolveRunner(ctx context.Context, p *JobRunParams) error {
	if id, ok := h.namedPeer(ctx, p.To); ok { // a name invite.join gave a peer
		p.To = id
		return nil
	}
	if !strings.HasPrefix(p.To, "runner:") {
		return nil
	}
	to, err := h.runnerPeer(ctx, p.Context, p.To)
	if err != nil {
		return err
	}
	p.To = to
	return nil
}

// claimJobKey claims p's idempotency key, if it has one (nil, nil, nil
// otherwise), in the context that records the job: this agent's origin
// context for a job sent away (named once the bridge has recorded it), else
// the job's own, where the job gets its id first so that the record names
// it before it is queued (the runner's claim checks the key:
// store/quarantine.go).
func (h *Handlers) claimJobKey(ctx context.Context, p *JobRunParams) (*store.SubmissionClaim, *store.EarlierSubmission, error) {
	if p.IdempotencyKey == "" {
		return nil, nil, nil
	}
	ctxID, ref := p.Context, ""
	if h.sendsAway(p.To) {
		origin, err := h.originContext(ctx, p.Context)
		if err != nil {
			return nil, nil, err
		}
		ctxID = origin
	} else {
		if err := h.checkFlowContext(ctx, p.Context); err != nil {
			return nil, nil, err
		}
		ids, err := h.Store.Jobs.NextIDs(ctx, p.Context, "job")
		if err != nil {
			return nil, nil, err
		}
		p.id, ref = ids[0], store.JobKey(h.Self.ID, ids[0])
	}
	return h.claimKey(ctx, ctxID, p.IdempotencyKey, ref, digestOf(jobDigestParams(p.JobRunParams)))
}

// placeJob stores the job for this agent's runner, or sends it to the
// agent p.To names (job.run only), now or at its run_at.
func (h *Handlers) placeJob(ctx context.Context, p JobRunParams, run bool) (*wire.JobView, *store.EndWatch, error) {
	if !h.sendsAway(p.To) {
		v, err := h.jobRunHere(ctx, p, run)
		return v, nil, err
	}
	if !run {
		return nil, nil, api.InvalidParams("to", "job.create stores local jobs only; use job.run for remote ones")
	}
	if at, ok := runAt(p.JobRunParams, time.Now()); ok {
		v, err := h.submitRemoteAt(ctx, p, at)
		return v, nil, err
	}
	return h.submitRemote(ctx, p)
}

// sendsAway reports whether target to names another agent.
func (h *Handlers) sendsAway(to string) bool {
	return to != "" && to != "self" && to != h.ID.PeerID().String()
}
