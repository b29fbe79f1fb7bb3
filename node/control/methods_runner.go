package control

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func runnerView(r *model.Runner) *wire.RunnerView {
	return &wire.RunnerView{ID: r.ID, Ref: "runner:" + u64(r.ID), Pubkey: r.Pubkey, Address: r.Address, Topic: r.Topic,
		Local: r.Local, ScriptTypes: nzs(r.ScriptTypes)}
}

func (h *Handlers) registerRunnerMethods() {
	api.RegisterShapes(h.table, "runner.create", "Register a runner (an agent's peer ID) in a context; jobs may then name runner:<id>. "+
		"{context, pubkey, …}, or the seed's {context_id, runner:{id, pubkey, address, topic, local, …}}.",
		api.Alt(func(ctx context.Context, p wire.RunnerParams) (*wire.RunnerView, error) {
			pub, err := peerIDOf(p.Pubkey)
			if err != nil {
				return nil, api.InvalidParams("pubkey", "%v", err)
			}
			r := &model.Runner{Pubkey: pub, Address: p.Address, Topic: p.Topic, Local: p.Local, ScriptTypes: p.ScriptTypes}
			if err := h.Store.Registry.SaveRunner(ctx, p.Context, r); err != nil {
				return nil, err
			}
			return runnerView(r), nil
		}),
		api.Alt(h.seedRunnerCreate))
	api.RegisterShapes(h.table, "runner.load", "Show a runner of a context: {context, id}, or the seed's {context_id, id}.",
		api.Alt(func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
			ID      uint64 `json:"id"`
		}) (*wire.RunnerView, error) {
			r, err := h.Store.Registry.LoadRunner(ctx, p.Context, p.ID)
			if err != nil {
				return nil, err
			}
			return runnerView(r), nil
		}),
		api.Alt(func(ctx context.Context, p wire.SeedRef) (*wire.SeedRunner, error) {
			if err := h.seedContext(ctx, p.ContextID); err != nil {
				return nil, err
			}
			r, err := h.Store.Registry.LoadRunner(ctx, p.ContextID, p.ID)
			if err != nil {
				return nil, err
			}
			return seedRunner(r), nil
		}))
	api.Register(h.table, "runner.list", "List a context's runners.",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
		}) ([]*wire.RunnerView, error) {
			rs, err := h.Store.Registry.ListRunners(ctx, p.Context)
			if err != nil {
				return nil, err
			}
			out := make([]*wire.RunnerView, 0, len(rs))
			for _, r := range rs {
				out = append(out, runnerView(r))
			}
			return out, nil
		})
}
