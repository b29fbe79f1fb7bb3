package overlaybench

import (
	"sync/atomic"

	"github.com/hyphae-run/hyphae/overlay"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// counter is a pubsub tracer counting gossipsub bytes (every RPC sent or
// received: messages and control) and presence messages received.
type counter struct {
	bytes    atomic.Int64
	presence atomic.Int64
}

func (c *counter) RecvRPC(rpc *pubsub.RPC) {
	c.bytes.Add(int64(rpc.Size()))
	for _, m := range rpc.GetPublish() {
		if m.GetTopic() == overlay.PresenceTopic {
			c.presence.Add(1)
		}
	}
}

func (c *counter) SendRPC(rpc *pubsub.RPC, _ peer.ID) { c.bytes.Add(int64(rpc.Size())) }

func (c *counter) AddPeer(peer.ID, protocol.ID)          {}
func (c *counter) RemovePeer(peer.ID)                    {}
func (c *counter) Join(string)                           {}
func (c *counter) Leave(string)                          {}
func (c *counter) Graft(peer.ID, string)                 {}
func (c *counter) Prune(peer.ID, string)                 {}
func (c *counter) ValidateMessage(*pubsub.Message)       {}
func (c *counter) DeliverMessage(*pubsub.Message)        {}
func (c *counter) RejectMessage(*pubsub.Message, string) {}
func (c *counter) DuplicateMessage(*pubsub.Message)      {}
func (c *counter) ThrottlePeer(peer.ID)                  {}
func (c *counter) DropRPC(*pubsub.RPC, peer.ID)          {}
func (c *counter) UndeliverableMessage(*pubsub.Message)  {}
