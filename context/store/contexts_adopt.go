package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// AdoptContext makes context c.ID, which the agent made by itself
// (model.ExtraMadeFor set), the context c asks for: its name and roles
// are c's, the mark goes, its creation time and what it holds stay. A
// context a user created is not adopted: ErrExists, as CreateContext.
func (s *Registry) AdoptContext(ctx context.Context, c *model.Context) error {
	db, err := s.db(c.ID)
	if err != nil {
		return fmt.Errorf("store.AdoptContext: %w", err)
	}
	key := ContextKey(c.ID)
	for try := 0; try < 20; try++ {
		err = db.Watch(ctx, func(tx *redis.Tx) error { return adoptIn(ctx, tx, key, c) }, key)
		if !errors.Is(err, redis.TxFailedErr) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("store.AdoptContext %d: %w", c.ID, err)
	}
	p := s.global.TxPipeline()
	p.HDel(ctx, key, model.ExtraMadeFor)
	p.HSet(ctx, key, pairs(c.ToHash())...)
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("store.AdoptContext registry: %w", err)
	}
	return nil
}

// adoptIn is AdoptContext's step in the context's own DB, under WATCH.
func adoptIn(ctx context.Context, tx *redis.Tx, key string, c *model.Context) error {
	h, err := tx.HGetAll(ctx, key).Result()
	if err != nil {
		return err
	}
	old, err := model.ContextFromHash(key, h)
	if err != nil {
		return err
	}
	if len(h) == 0 || old.Extra[model.ExtraMadeFor] == "" {
		return fmt.Errorf("context %d: %w", c.ID, ErrExists)
	}
	c.Extra = old.Extra
	delete(c.Extra, model.ExtraMadeFor)
	c.CreatedAt, c.UpdatedAt = old.CreatedAt, 0
	stamp(&c.CreatedAt, &c.UpdatedAt)
	_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HDel(ctx, key, model.ExtraMadeFor)
		p.HSet(ctx, key, pairs(c.ToHash())...)
		return nil
	})
	return err
}
