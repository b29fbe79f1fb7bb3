package control

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// submitRemote sends a job to another agent (p.To a peer ID, or ToAny:
// the bridge picks one by type and records it as the job's runner): the
// bridge records the job and a job message in a local context (the
// origin) and sends it at once (Bridge.Submit). The remote context is
// p.Context; the local record lives in the local context of the same id
// when there is one, else in the lowest local context. With none, one is
// made and marked model.MadeForOutbox, so that a later `context create`
// with its id adopts it instead of failing "already exists".
func (h *Handlers) submitRemote(ctx context.Context, p JobRunParams) (*JobView, *store.EndWatch, error) {
	dst := "" // to any: the bridge routes it by type
	if p.To != ToAny {
		id, err := peer.Decode(p.To)
		if err != nil {
			return nil, nil, api.InvalidParams("to", "%q is neither self, any nor a peer ID: %v", p.To, err)
		}
		dst = id.String()
	}
	if h.Draining() {
		return nil, nil, api.Errorf(api.CodeUnavailable, "agent is draining: not sending new jobs")
	}
	origin, err := h.originContext(ctx, p.Context)
	if err != nil {
		return nil, nil, err
	}
	j := &model.RunnerJob{CallerID: h.Self.ID, ContextID: origin, Name: p.Name, Script: p.Script,
		ScriptType: p.Type, Timeout: p.Timeout, Retries: p.Retries, EnvVars: p.Env, MemoryMB: p.MemoryMB, CPU: p.CPU,
		Status: model.JobDispatched, Attempt: 1, Runner: dst}
	j.SetTraceID(p.trace)
	j.SetNetwork(p.Network)
	j.SetConcurrency(p.concurrency())
	j.SetIdempotencyKey(p.IdempotencyKey)
	w, err := h.Bridge.Submit(ctx, origin, p.Context, dst, j, h.Cfg.Bus.Timeout, p.Wait != 0)
	if err != nil {
		return nil, nil, err
	}
	return jobView(j), w, nil
}

// originContext picks the local context that records a job sent away.
func (h *Handlers) originContext(ctx context.Context, want uint64) (uint64, error) {
	ids, err := h.ContextIDs(ctx)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if id == want {
			return id, nil
		}
	}
	if len(ids) > 0 {
		return ids[0], nil
	}
	c := &model.Context{Name: "outbox", Admins: []uint64{h.Self.ID},
		Extra: model.Hash{model.ExtraMadeFor: model.MadeForOutbox}}
	if err := h.Store.CreateContext(ctx, c); err != nil && !errors.Is(err, store.ErrExists) {
		return 0, err
	}
	h.ContextsChanged()
	return c.ID, nil
}

// runnerPeer resolves to, runner:<id>, to the peer ID its record in local
// context ctxID names ("self" when it names this agent, as the scheduler
// reads a flow job's runner:<id>), once, at submission: the job then goes
// there as if sent to that peer ID.
func (h *Handlers) runnerPeer(ctx context.Context, ctxID uint64, to string) (string, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(to, "runner:"), 10, 64)
	if err != nil || id == 0 {
		return "", api.InvalidParams("to", "%q: want runner:<id>, the id a positive number", to)
	}
	if _, err := h.Store.LoadContext(ctx, ctxID); err != nil {
		return "", api.InvalidParams("to", "%s names a runner record of context %d here, and this agent has no context %d", to, ctxID, ctxID)
	}
	r, err := h.Store.LoadRunner(ctx, ctxID, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", api.InvalidParams("to", "context %d has no %s (hyphae runner list %d)", ctxID, to, ctxID)
	}
	if err != nil {
		return "", err
	}
	if r.RunsHere(h.ID.PeerID().String()) {
		return "self", nil
	}
	p, err := peer.Decode(r.Pubkey)
	if err != nil {
		return "", api.InvalidParams("to", "%s names %q, which is not a peer ID", to, r.Pubkey)
	}
	return p.String(), nil
}
