package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// saveFlow writes f into its context DB (allocating its id when 0).
func (s *core) saveFlow(ctx context.Context, f *model.Flow) error {
	db, err := s.db(f.ContextID)
	if err != nil {
		return fmt.Errorf("store.SaveFlow: %w", err)
	}
	if f.ID == 0 {
		if f.ID, err = NextID(ctx, db, "flow"); err != nil {
			return fmt.Errorf("store.SaveFlow: %w", err)
		}
	}
	stamp(&f.CreatedAt, &f.UpdatedAt)
	return wrap("store.SaveFlow", hset(ctx, db, FlowKey(f.ID), f.ToHash()))
}

// LoadFlow reads flow:<id> of context ctxID.
func (s *Flows) LoadFlow(ctx context.Context, ctxID, id uint64) (*model.Flow, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadFlow: %w", err)
	}
	h, err := load(ctx, db, FlowKey(id))
	if err != nil {
		return nil, fmt.Errorf("store.LoadFlow: %w", err)
	}
	return model.FlowFromHash(FlowKey(id), h)
}

// ListFlows returns the flows of a context.
func (s *Flows) ListFlows(ctx context.Context, ctxID uint64) ([]*model.Flow, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListFlows: %w", err)
	}
	keys, err := scan(ctx, db, "flow:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListFlows: %w", err)
	}
	return loadAll(ctx, db, keys, model.FlowFromHash)
}

// deleteFlow removes flow:<id>.
func (s *core) deleteFlow(ctx context.Context, ctxID, id uint64) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.DeleteFlow: %w", err)
	}
	return wrap("store.DeleteFlow", del(ctx, db, FlowKey(id)))
}

// SaveRunner writes r into context ctxID (allocating its id when 0).
func (s *Registry) SaveRunner(ctx context.Context, ctxID uint64, r *model.Runner) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SaveRunner: %w", err)
	}
	if r.ID == 0 {
		if r.ID, err = NextID(ctx, db, "runner"); err != nil {
			return fmt.Errorf("store.SaveRunner: %w", err)
		}
	}
	stamp(&r.CreatedAt, &r.UpdatedAt)
	return wrap("store.SaveRunner", hset(ctx, db, RunnerKey(r.ID), r.ToHash()))
}

// LoadRunner reads runner:<id> of context ctxID.
func (s *Registry) LoadRunner(ctx context.Context, ctxID, id uint64) (*model.Runner, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadRunner: %w", err)
	}
	h, err := load(ctx, db, RunnerKey(id))
	if err != nil {
		return nil, fmt.Errorf("store.LoadRunner: %w", err)
	}
	return model.RunnerFromHash(RunnerKey(id), h)
}

// ListRunners returns the runners of a context.
func (s *Registry) ListRunners(ctx context.Context, ctxID uint64) ([]*model.Runner, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListRunners: %w", err)
	}
	keys, err := scan(ctx, db, "runner:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListRunners: %w", err)
	}
	return loadAll(ctx, db, keys, model.RunnerFromHash)
}

// deleteRunner removes runner:<id>.
func (s *core) deleteRunner(ctx context.Context, ctxID, id uint64) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.DeleteRunner: %w", err)
	}
	return wrap("store.DeleteRunner", del(ctx, db, RunnerKey(id)))
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// FlowStatusCounts counts a context's flows by status, reading only the
// status field of each (for metrics).
func (s *Flows) FlowStatusCounts(ctx context.Context, ctxID uint64) (map[string]int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.FlowStatusCounts: %w", err)
	}
	keys, err := scan(ctx, db, "flow:*")
	if err != nil {
		return nil, fmt.Errorf("store.FlowStatusCounts: %w", err)
	}
	cmds, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.HGet(ctx, k, "status")
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("store.FlowStatusCounts: %w", err)
	}
	out := map[string]int64{}
	for _, c := range cmds {
		if st, err := c.(*redis.StringCmd).Result(); err == nil {
			out[st]++
		}
	}
	return out, nil
}
