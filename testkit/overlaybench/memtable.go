package overlaybench

import (
	"context"
	"errors"
	"sync"

	"github.com/hyphae-run/hyphae/context/model"
)

// memTable is an in-memory overlay.PeerTable: traffic measurements do not
// depend on where the table is kept, and 50 redis-servers would measure
// the machine rather than the overlay.
type memTable struct {
	mu   sync.Mutex
	rows map[string]model.Peer // guarded by mu
}

var errNotFound = errors.New("peer not found")

func newMemTable() *memTable { return &memTable{rows: map[string]model.Peer{}} }

func (m *memTable) SavePeer(_ context.Context, p *model.Peer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows[p.PeerID] = *p
	return nil
}

func (m *memTable) LoadPeer(_ context.Context, id string) (*model.Peer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.rows[id]
	if !ok {
		return nil, errNotFound
	}
	return &p, nil
}

func (m *memTable) ListPeers(context.Context) ([]*model.Peer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*model.Peer, 0, len(m.rows))
	for _, p := range m.rows {
		out = append(out, &p)
	}
	return out, nil
}
