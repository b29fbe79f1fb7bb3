package control

import (
	"context"
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/route"
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
	to, err := h.route(ctx, p.Context, p.To) // a peer ID, or ToAny: Open, dst ""
	if err != nil {
		return nil, nil, err
	}
	dst := to.Peer
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
	j.SetOutputs(p.Outputs)
	j.SetInputsJSON(p.inputs)
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
	if err := h.Store.Registry.CreateContext(ctx, c); err != nil && !errors.Is(err, store.ErrExists) {
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
	out, err := h.route(ctx, ctxID, to)
	if err != nil {
		return "", err
	}
	if out.Kind == route.Here {
		return "self", nil
	}
	return out.Peer, nil
}

// route reads job.run's target to by the one rule (context/route), with
// the runner records of local context ctxID.
func (h *Handlers) route(ctx context.Context, ctxID uint64, to string) (route.Outcome, error) {
	out, err := route.Resolve(ctx, routeRecords{h}, route.Query{Context: ctxID, To: to},
		apiRoute(h.ID.PeerID().String()))
	return out, toErr(err)
}

// apiRoute is how job.run reads its target: no target or "self" is this
// agent (self), "any" is left to the bridge, a peer ID is checked and
// kept in its canonical form, a runner:<id> record naming this agent
// means here, and a target that names nobody valid is refused.
func apiRoute(self string) route.Options {
	return route.Options{Self: self, EmptyIsSelf: true, SelfWord: true, AnyWord: true, RecordHere: true,
		PeerID: canonicalPeer, OnBad: route.Fail, Open: route.OpenDefer}
}

func canonicalPeer(s string) (string, error) {
	id, err := peer.Decode(s)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// toErr makes a refused target invalid params of "to".
func toErr(err error) error {
	var te *route.TargetError
	if errors.As(err, &te) {
		return api.InvalidParams("to", "%s", te.Msg)
	}
	return err
}

// routeRecords is what the routing rule reads of the store: the runner
// records of a local context, which must exist.
type routeRecords struct{ h *Handlers }

func (v routeRecords) Runner(ctx context.Context, ctxID, id uint64) (*model.Runner, error) {
	if _, err := v.h.Store.Registry.LoadContext(ctx, ctxID); err != nil {
		return nil, fmt.Errorf("%w: %w", route.ErrNoContext, err)
	}
	r, err := v.h.Store.Registry.LoadRunner(ctx, ctxID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", route.ErrNoRecord, err)
	}
	return r, err
}

func (v routeRecords) Runners(ctx context.Context, ctxID uint64, _ bool) ([]*model.Runner, error) {
	return v.h.Store.Registry.ListRunners(ctx, ctxID)
}
