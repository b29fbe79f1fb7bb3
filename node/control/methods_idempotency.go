package control

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// Idempotency keys on job.run, job.create, flow.create and flow.start
// (docs/idempotency.md): the first submission with a key claims its record
// in the context that keeps the object it makes (for a job sent to another
// agent, this agent's origin context); a second one within the retention
// window gets that object back, marked deduplicated, instead of running.

// claimKey claims key, in context ctxID, for a submission whose content
// has digest and which makes ref ("" when not known yet), by the store's
// claim protocol (store.ClaimSubmission). With no key it does nothing
// (nil, nil, nil); a key used within the retention window gives what the
// first submission made.
func (h *Handlers) claimKey(ctx context.Context, ctxID uint64, key, ref, digest string) (*store.SubmissionClaim, *store.EarlierSubmission, error) {
	if key == "" {
		return nil, nil, nil
	}
	if err := store.CheckIdempotencyKey(key); err != nil {
		return nil, nil, api.InvalidParams("idempotency_key", "%v", err)
	}
	c, dup, err := h.Store.Jobs.ClaimSubmission(ctx, ctxID, key, ref, digest)
	if pending := (*store.PendingSubmissionError)(nil); errors.As(err, &pending) {
		return nil, nil, api.Errorf(api.CodeConflict, "%s", pending.Error())
	}
	return c, dup, err
}

// jobDigestParams is what tells two job submissions apart: everything but
// how long the caller waits and the key itself.
func jobDigestParams(p wire.JobRunParams) wire.JobRunParams {
	p.Wait, p.IdempotencyKey = 0, ""
	p.Inputs = withoutTokens(p.Inputs) // job_inputs.go: the same files, another upload
	return p
}

// duplicateJob answers a job submission whose key was used: the first
// submission's job, marked deduplicated.
func (h *Handlers) duplicateJob(ctx context.Context, d *store.EarlierSubmission) (*wire.JobView, error) {
	if !strings.HasPrefix(d.Ref, "job:") {
		return nil, api.Errorf(api.CodeConflict, "this idempotency key was used within the retention window by %s, not by a job", d.Ref)
	}
	j, err := h.Store.Jobs.LoadJobKey(ctx, d.Context, d.Ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.CodeConflict, "this idempotency key was used by %s, which no longer exists (pruned); use a new key", d.Ref)
	}
	if err != nil {
		return nil, err
	}
	v := jobView(j)
	v.Deduplicated, v.ContentDiffers = true, d.ContentDiffers
	return v, nil
}

// flowCreateOnce is flow.create with an idempotency key: a second create
// (or run) with the key answers the first flow instead of making another.
func (h *Handlers) flowCreateOnce(ctx context.Context, p wire.FlowCreateParams) (*wire.FlowView, error) {
	if p.IdempotencyKey == "" {
		return h.flowCreate(ctx, p)
	}
	ctxID := p.Context
	if ctxID == 0 {
		ctxID = fileContext(p)
	}
	if ctxID == 0 { // no context: flowCreate says what is wrong
		return h.flowCreate(ctx, p)
	}
	if err := h.checkFlowContext(ctx, ctxID); err != nil {
		return nil, err
	}
	key := p.IdempotencyKey
	p.IdempotencyKey = ""
	c, dup, err := h.claimKey(ctx, ctxID, key, "", digestOf(p))
	if err != nil {
		return nil, err
	}
	if dup != nil {
		return h.duplicateFlow(ctx, dup)
	}
	v, err := h.flowCreate(ctx, p)
	if err != nil {
		c.Release(ctx)
		return nil, err
	}
	c.Done(ctx, store.FlowKey(v.ID))
	v.IdempotencyKey = key
	return v, nil
}

// flowStartOnce is flow.start: with an idempotency key already used, the
// flow it started is answered and this one is not started.
func (h *Handlers) flowStartOnce(ctx context.Context, p wire.FlowStartParams) (*wire.FlowView, error) {
	if p.IdempotencyKey == "" {
		return h.flowAct(ctx, p.FlowRef, h.startFlow)
	}
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	ref := store.FlowKey(p.ID)
	c, dup, err := h.claimKey(ctx, p.Context, p.IdempotencyKey, ref, ref)
	if err != nil {
		return nil, err
	}
	if dup != nil {
		return h.duplicateFlow(ctx, dup)
	}
	v, err := h.flowAct(ctx, p.FlowRef, h.startFlow)
	if err != nil {
		c.Release(ctx)
		return nil, err
	}
	v.IdempotencyKey = p.IdempotencyKey
	return v, nil
}

// duplicateFlow answers a flow submission whose key was used: the first
// submission's flow, marked deduplicated.
func (h *Handlers) duplicateFlow(ctx context.Context, d *store.EarlierSubmission) (*wire.FlowView, error) {
	id, ok := strings.CutPrefix(d.Ref, "flow:")
	var ref wire.FlowRef
	if !ok || json.Unmarshal([]byte(id), &ref.ID) != nil {
		return nil, api.Errorf(api.CodeConflict, "this idempotency key was used within the retention window by %s, not by a flow", d.Ref)
	}
	ref.Context = d.Context
	v, err := h.flowStatus(ctx, ref)
	if err != nil {
		return nil, err
	}
	v.Deduplicated, v.ContentDiffers = true, d.ContentDiffers
	return v, nil
}

// digestOf is a submission's content digest (of its JSON).
func digestOf(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// fileContext is the context a flow file names (0 when it cannot be read:
// flowCreate then says why).
func fileContext(p wire.FlowCreateParams) uint64 {
	f, _, err := flowfile.Parse([]byte(p.FileContent), p.FileName, p.BaseDir)
	if err != nil {
		return 0
	}
	return f.Context
}

// dedupOnto marks v, the job j as it is after a wait, deduplicated as j
// was: the answer to the submission still says it ran before.
func dedupOnto(j, v *wire.JobView, err error) (*wire.JobView, error) {
	if v != nil {
		v.Deduplicated, v.ContentDiffers = j.Deduplicated, j.ContentDiffers
	}
	return v, err
}
