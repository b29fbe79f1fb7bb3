package node_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// floorWire carries the floor's envelopes between its two agents: over
// gossipsub topics (the inbox topics every earlier floor used) or over a
// kept libp2p stream per direction, as overlay's direct streams do.
type floorWire interface {
	publish(ctx context.Context, to peer.ID, data []byte) error
	next(ctx context.Context) (floorMsg, error)
}

// floorMsg is one received envelope and who sent it: the pubsub author, or
// the stream's authenticated remote peer.
type floorMsg struct {
	data []byte
	from peer.ID
}

// pubsubWire sends on the peer's inbox topic and reads this agent's.
type pubsubWire struct {
	in  *pubsub.Subscription
	out *pubsub.Topic
}

func (w pubsubWire) publish(ctx context.Context, _ peer.ID, data []byte) error {
	return w.out.Publish(ctx, data)
}

func (w pubsubWire) next(ctx context.Context) (floorMsg, error) {
	m, err := w.in.Next(ctx)
	if err != nil {
		return floorMsg{}, err
	}
	return floorMsg{data: m.Data, from: m.GetFrom()}, nil
}

// floorProto is the floor's stream protocol: frames of a uvarint length
// and that many bytes, as overlay's /hyphae/bus/1.0.0.
const floorProto = protocol.ID("/hyphae-floor/1")

// streamWire writes to one kept outgoing stream and reads every incoming
// one into a channel.
type streamWire struct {
	ctx context.Context
	h   host.Host
	in  chan floorMsg

	mu  sync.Mutex
	out network.Stream // opened on first use; guarded by mu
}

// newStreamWire serves floorProto on h until ctx ends.
func newStreamWire(ctx context.Context, h host.Host) *streamWire {
	w := &streamWire{ctx: ctx, h: h, in: make(chan floorMsg, 16)}
	h.SetStreamHandler(floorProto, w.serve)
	return w
}

// serve reads frames from one incoming stream.
func (w *streamWire) serve(s network.Stream) {
	defer s.Reset()
	r := bufio.NewReader(s)
	for {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 1<<20 {
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		select {
		case w.in <- floorMsg{data: buf, from: s.Conn().RemotePeer()}:
		case <-w.ctx.Done():
			return
		}
	}
}

func (w *streamWire) publish(ctx context.Context, to peer.ID, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.out == nil {
		s, err := w.h.NewStream(ctx, to, floorProto)
		if err != nil {
			return fmt.Errorf("floor stream: %w", err)
		}
		w.out = s
	}
	frame := binary.AppendUvarint(make([]byte, 0, len(data)+binary.MaxVarintLen64), uint64(len(data)))
	_, err := w.out.Write(append(frame, data...))
	return err
}

func (w *streamWire) next(ctx context.Context) (floorMsg, error) {
	select {
	case m := <-w.in:
		return m, nil
	case <-ctx.Done():
		return floorMsg{}, ctx.Err()
	}
}
