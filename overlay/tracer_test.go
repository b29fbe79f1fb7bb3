package overlay

import (
	"sync"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// meshTracer records which peers are in this router's mesh per topic, so a
// test can wait for an intermediate agent's mesh to form.
type meshTracer struct {
	mu   sync.Mutex
	mesh map[string]map[peer.ID]bool // guarded by mu
}

func (m *meshTracer) inMesh(topic string, p peer.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mesh[topic][p]
}

func (m *meshTracer) set(topic string, p peer.ID, in bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mesh == nil {
		m.mesh = map[string]map[peer.ID]bool{}
	}
	if m.mesh[topic] == nil {
		m.mesh[topic] = map[peer.ID]bool{}
	}
	m.mesh[topic][p] = in
}

func (m *meshTracer) Graft(p peer.ID, topic string)         { m.set(topic, p, true) }
func (m *meshTracer) Prune(p peer.ID, topic string)         { m.set(topic, p, false) }
func (m *meshTracer) AddPeer(peer.ID, protocol.ID)          {}
func (m *meshTracer) RemovePeer(peer.ID)                    {}
func (m *meshTracer) Join(string)                           {}
func (m *meshTracer) Leave(string)                          {}
func (m *meshTracer) ValidateMessage(*pubsub.Message)       {}
func (m *meshTracer) DeliverMessage(*pubsub.Message)        {}
func (m *meshTracer) RejectMessage(*pubsub.Message, string) {}
func (m *meshTracer) DuplicateMessage(*pubsub.Message)      {}
func (m *meshTracer) ThrottlePeer(peer.ID)                  {}
func (m *meshTracer) RecvRPC(*pubsub.RPC)                   {}
func (m *meshTracer) SendRPC(*pubsub.RPC, peer.ID)          {}
func (m *meshTracer) DropRPC(*pubsub.RPC, peer.ID)          {}
func (m *meshTracer) UndeliverableMessage(*pubsub.Message)  {}
