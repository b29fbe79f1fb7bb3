package control

import (
	"context"
	"slices"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// seedRunnerCreate is runner.create {context_id, runner:{…}}: the record
// under the id the caller chose (or a new one). A runner is reached by
// its pubkey (a peer ID, or a hex ed25519 key turned into one); one with
// local: true is a worker on this agent and needs none.
func (h *Handlers) seedRunnerCreate(ctx context.Context, p wire.SeedRunnerParams) (*wire.SeedRunner, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	in := p.Runner
	r := &model.Runner{ID: in.ID, Address: in.Address, Topic: in.Topic, Local: in.Local,
		ScriptTypes: in.ScriptTypes, CreatedAt: in.CreatedAt}
	switch {
	case in.Pubkey != "":
		pub, err := peerIDOf(in.Pubkey)
		if err != nil {
			return nil, api.InvalidParams("runner.pubkey", "%v", err)
		}
		r.Pubkey = pub
	case !in.Local:
		return nil, api.InvalidParams("runner.pubkey", "required: the runner agent's peer ID or hex ed25519 key (or local: true for a worker on this agent)")
	}
	for _, t := range in.ScriptTypes {
		if !model.ValidScriptType(t) {
			return nil, api.InvalidParams("runner.script_types", "%q is not a script type", t)
		}
	}
	if err := seedRunnerType(r, in.Type); err != nil {
		return nil, err
	}
	if r.Topic == "" {
		if err := h.runnerID(ctx, p.ContextID, r); err != nil {
			return nil, err
		}
		r.Topic = runnerTopic(r) // seed 001: topic defaults to runner<id>
	}
	if in.Secret != "" {
		setExtra(r, "secret", in.Secret)
	}
	if err := h.Store.Registry.CreateRunner(ctx, p.ContextID, r); err != nil {
		return nil, err
	}
	return seedRunner(r), nil
}

// runnerID gives r a new id from context ctxID's runner counter when the
// caller chose none, so its default topic can name it before it is saved.
func (h *Handlers) runnerID(ctx context.Context, ctxID uint64, r *model.Runner) error {
	if r.ID != 0 {
		return nil
	}
	ids, err := h.Store.Jobs.NextIDs(ctx, ctxID, "runner")
	if err != nil {
		return err
	}
	r.ID = ids[0]
	return nil
}

// externalWorker reports whether a runner record of context ctxID with
// local: true declares an external worker for script type typ (seed 001;
// store.DeclaresExternal): jobs of that type wait on its queue for it.
func (h *Handlers) externalWorker(ctx context.Context, ctxID uint64, typ string) bool {
	ok, err := h.Store.Jobs.ExternalWorker(ctx, ctxID, typ)
	return err == nil && ok
}

// seedRunnerTypes are seed 000's RunnerType values.
var seedRunnerTypes = []string{"v", "python", "osis", "rust"}

// seedRunnerType takes seed 000's Runner type (v|python|osis|rust), the
// script type the runner runs: kept in the record as "type", and its
// script_types when the call gave none, so that jobs of that type are
// the ones routed to it.
func seedRunnerType(r *model.Runner, typ string) error {
	if typ == "" {
		return nil
	}
	if !slices.Contains(seedRunnerTypes, typ) {
		return api.InvalidParams("runner.type", "%q: want v, python, osis or rust", typ)
	}
	if len(r.ScriptTypes) == 0 {
		r.ScriptTypes = []string{typ}
	}
	setExtra(r, "type", typ)
	return nil
}

// setExtra keeps field k = v in r's record beside the model's fields.
func setExtra(r *model.Runner, k, v string) {
	if r.Extra == nil {
		r.Extra = model.Hash{}
	}
	r.Extra[k] = v
}
