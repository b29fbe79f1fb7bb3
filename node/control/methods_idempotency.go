package control

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/scheduler"
)

// Idempotency keys on job.run, job.create, flow.create and flow.start
// (docs/idempotency.md): the first submission with a key claims its record
// in the context that keeps the object it makes (for a job sent to another
// agent, this agent's origin context); a second one within the retention
// window gets that object back, marked deduplicated, instead of running.

// idemPendingWait bounds how long a submission waits for another one with
// the same key that is still being made (it then names its object).
const idemPendingWait = 10 * time.Second

// idemClaim is a fresh submission's hold on its idempotency key.
type idemClaim struct {
	st    *store.Store
	ctxID uint64
	key   string
	ref   string // what the record names now: a placeholder until done
}

// idemDup is what an earlier submission with the same key made.
type idemDup struct {
	ctxID          uint64
	ref            string
	contentDiffers bool
}

// claimIdem claims key, in context ctxID, for a submission whose content
// has digest and which makes ref ("" when not known yet: a placeholder
// stands for it until done). With no key it does nothing (nil, nil, nil);
// a key used within the retention window gives what the first submission
// made.
func (h *Handlers) claimIdem(ctx context.Context, ctxID uint64, key, ref, digest string) (*idemClaim, *idemDup, error) {
	if key == "" {
		return nil, nil, nil
	}
	if err := store.CheckIdempotencyKey(key); err != nil {
		return nil, nil, api.InvalidParams("idempotency_key", "%v", err)
	}
	if ref == "" {
		ref = store.IdempotencyPending + randomHex()
	}
	deadline := time.Now().Add(idemPendingWait)
	for {
		rec, fresh, err := h.Store.ClaimIdempotencyRecord(ctx, ctxID, key, store.IdemRecord{Ref: ref, Digest: digest}, 0)
		switch {
		case err != nil:
			return nil, nil, err
		case fresh:
			return &idemClaim{st: h.Store, ctxID: ctxID, key: key, ref: ref}, nil, nil
		case !rec.Pending():
			return nil, &idemDup{ctxID: ctxID, ref: rec.Ref, contentDiffers: rec.Digest != digest}, nil
		case time.Now().After(deadline):
			return nil, nil, api.Errorf(api.CodeConflict, "a submission with idempotency key %q is still being made; try again", key)
		}
		select { // the first submission is under way: it names its object soon
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// done names on the record the object the submission made (ref).
func (c *idemClaim) done(ctx context.Context, ref string) {
	if c == nil || c.ref == ref {
		return
	}
	if _, err := c.st.SetIdempotencyRef(context.WithoutCancel(ctx), c.ctxID, c.key, c.ref, ref, 0); err == nil {
		c.ref = ref
	}
}

// release frees the key of a submission that failed before making
// anything, so that trying again is not answered with a duplicate.
func (c *idemClaim) release(ctx context.Context) {
	if c != nil {
		_ = c.st.ReleaseIdempotency(context.WithoutCancel(ctx), c.ctxID, c.key, c.ref)
	}
}

// jobRunOnce is jobRun for a submission with an idempotency key. A job for
// this agent gets its id first, so that the record names it before it is
// queued (the runner's claim checks the key: store/quarantine.go); a job
// sent away is named once the bridge has recorded it.
func (h *Handlers) jobRunOnce(ctx context.Context, p JobRunParams, run bool) (*JobView, *store.EndWatch, error) {
	p.once = true
	ctxID, ref := p.Context, ""
	if p.To != "" && p.To != "self" && p.To != h.ID.PeerID().String() {
		origin, err := h.originContext(ctx, p.Context)
		if err != nil {
			return nil, nil, err
		}
		ctxID = origin
	} else {
		if err := h.checkFlowContext(ctx, p.Context); err != nil {
			return nil, nil, err
		}
		ids, err := h.Store.NextIDs(ctx, p.Context, "job")
		if err != nil {
			return nil, nil, err
		}
		p.id, ref = ids[0], store.JobKey(h.Self.ID, ids[0])
	}
	c, dup, err := h.claimIdem(ctx, ctxID, p.IdempotencyKey, ref, digestOf(jobDigestParams(p)))
	if err != nil {
		return nil, nil, err
	}
	if dup != nil {
		v, err := h.duplicateJob(ctx, dup)
		return v, nil, err
	}
	v, w, err := h.jobRun(ctx, p, run)
	if err != nil {
		c.release(ctx)
		return nil, nil, err
	}
	c.done(ctx, v.Key)
	v.IdempotencyKey = p.IdempotencyKey
	return v, w, nil
}

// jobDigestParams is what tells two job submissions apart: everything but
// how long the caller waits and the key itself.
func jobDigestParams(p JobRunParams) JobRunParams {
	p.Wait, p.IdempotencyKey = 0, ""
	return p
}

// duplicateJob answers a job submission whose key was used: the first
// submission's job, marked deduplicated.
func (h *Handlers) duplicateJob(ctx context.Context, d *idemDup) (*JobView, error) {
	if !strings.HasPrefix(d.ref, "job:") {
		return nil, api.Errorf(api.CodeConflict, "this idempotency key was used within the retention window by %s, not by a job", d.ref)
	}
	j, err := h.Store.LoadJobKey(ctx, d.ctxID, d.ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.CodeConflict, "this idempotency key was used by %s, which no longer exists (pruned); use a new key", d.ref)
	}
	if err != nil {
		return nil, err
	}
	v := jobView(j)
	v.Deduplicated, v.ContentDiffers = true, d.contentDiffers
	return v, nil
}

// flowCreateOnce is flow.create with an idempotency key: a second create
// (or run) with the key answers the first flow instead of making another.
func (h *Handlers) flowCreateOnce(ctx context.Context, p FlowCreateParams) (*FlowView, error) {
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
	c, dup, err := h.claimIdem(ctx, ctxID, key, "", digestOf(p))
	if err != nil {
		return nil, err
	}
	if dup != nil {
		return h.duplicateFlow(ctx, dup)
	}
	v, err := h.flowCreate(ctx, p)
	if err != nil {
		c.release(ctx)
		return nil, err
	}
	c.done(ctx, store.FlowKey(v.ID))
	v.IdempotencyKey = key
	return v, nil
}

// FlowStartParams start a created flow, once per idempotency key.
type FlowStartParams struct {
	FlowRef
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// flowStartOnce is flow.start: with an idempotency key already used, the
// flow it started is answered and this one is not started.
func (h *Handlers) flowStartOnce(ctx context.Context, p FlowStartParams) (*FlowView, error) {
	if p.IdempotencyKey == "" {
		return h.flowAct(ctx, p.FlowRef, h.startFlow)
	}
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	ref := store.FlowKey(p.ID)
	c, dup, err := h.claimIdem(ctx, p.Context, p.IdempotencyKey, ref, ref)
	if err != nil {
		return nil, err
	}
	if dup != nil {
		return h.duplicateFlow(ctx, dup)
	}
	v, err := h.flowAct(ctx, p.FlowRef, h.startFlow)
	if err != nil {
		c.release(ctx)
		return nil, err
	}
	v.IdempotencyKey = p.IdempotencyKey
	return v, nil
}

// duplicateFlow answers a flow submission whose key was used: the first
// submission's flow, marked deduplicated.
func (h *Handlers) duplicateFlow(ctx context.Context, d *idemDup) (*FlowView, error) {
	id, ok := strings.CutPrefix(d.ref, "flow:")
	var ref FlowRef
	if !ok || json.Unmarshal([]byte(id), &ref.ID) != nil {
		return nil, api.Errorf(api.CodeConflict, "this idempotency key was used within the retention window by %s, not by a flow", d.ref)
	}
	ref.Context = d.ctxID
	v, err := h.flowStatus(ctx, ref)
	if err != nil {
		return nil, err
	}
	v.Deduplicated, v.ContentDiffers = true, d.contentDiffers
	return v, nil
}

// digestOf is a submission's content digest (of its JSON).
func digestOf(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func randomHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fileContext is the context a flow file names (0 when it cannot be read:
// flowCreate then says why).
func fileContext(p FlowCreateParams) uint64 {
	f, _, err := scheduler.Parse([]byte(p.FileContent), p.FileName, p.BaseDir)
	if err != nil {
		return 0
	}
	return f.Context
}

// dedupOnto marks v, the job j as it is after a wait, deduplicated as j
// was: the answer to the submission still says it ran before.
func (j *JobView) dedupOnto(v *JobView, err error) (*JobView, error) {
	if v != nil {
		v.Deduplicated, v.ContentDiffers = j.Deduplicated, j.ContentDiffers
	}
	return v, err
}
