package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// SavePeer writes a row of the peer table (DB 0).
func (s *Registry) SavePeer(ctx context.Context, p *model.Peer) error {
	if p.PeerID == "" {
		return fmt.Errorf("store.SavePeer: empty peer id")
	}
	return wrap("store.SavePeer", hset(ctx, s.global, PeerKey(p.PeerID), p.ToHash()))
}

// LoadPeer reads peer:<id>; ErrNotFound when unknown.
func (s *Registry) LoadPeer(ctx context.Context, peerID string) (*model.Peer, error) {
	h, err := load(ctx, s.global, PeerKey(peerID))
	if err != nil {
		return nil, fmt.Errorf("store.LoadPeer: %w", err)
	}
	return model.PeerFromHash(PeerKey(peerID), h)
}

// DeletePeer removes peer:<id> (a peer the overlay forgot); deleting one
// already gone is no error.
func (s *Registry) DeletePeer(ctx context.Context, peerID string) error {
	if err := del(ctx, s.global, PeerKey(peerID)); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("store.DeletePeer: %w", err)
	}
	return nil
}

// ListPeers returns the whole peer table.
func (s *Registry) ListPeers(ctx context.Context) ([]*model.Peer, error) {
	keys, err := scan(ctx, s.global, "peer:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListPeers: %w", err)
	}
	return loadAll(ctx, s.global, keys, model.PeerFromHash)
}

// SetMeta writes node metadata fields (DB 0 hash "node").
func (s *Store) SetMeta(ctx context.Context, fields model.Hash) error {
	return wrap("store.SetMeta", hset(ctx, s.global, NodeKey, fields))
}

// meta reads node metadata.
func (s *core) meta(ctx context.Context) (model.Hash, error) {
	h, err := s.global.HGetAll(ctx, NodeKey).Result()
	return h, wrap("store.Meta", err)
}

// QueueDepths returns the length of every queue:<type> list of a context.
func (s *Queues) QueueDepths(ctx context.Context, ctxID uint64) (map[string]int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, err
	}
	keys, err := scan(ctx, db, QueueKey("*"))
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(keys))
	for _, k := range keys {
		n, err := db.LLen(ctx, k).Result()
		if err != nil {
			continue // not a list
		}
		out[k[len(QueueKey("")):]] = n
	}
	return out, nil
}
