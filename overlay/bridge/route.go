package bridge

import (
	"context"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/route"
)

// destination picks the recipient of m: its dst, else (for a job) the
// job's runner, else one the agent chooses (byType); a chat or mail
// without dst goes to a runner registered in the context. An empty result comes
// with the reason it waits; err (wrapping ErrNoRunner) says the message
// can never go.
func (b *Bridge) destination(ctx context.Context, ctxID uint64, m *model.Message) (peer.ID, string, error) {
	if m.Dst != "" {
		p, err := b.names.decode(m.Dst)
		if err != nil {
			return "", fmt.Sprintf("dst %q is not a peer ID", m.Dst), nil
		}
		return p, "", nil
	}
	if m.MessageType == model.MsgTypeChat || m.MessageType == model.MsgTypeMail {
		return b.toRegistered(ctx, ctxID) // route_chat.go
	}
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return "", "no dst", nil
	}
	return b.route(ctx, ctxID, m.Job[0])
}

// route resolves a job's runner field (a peer ID the user named, or
// runner:<id>, a record of the context), or leaves the choice to the
// agent, by the one rule (context/route): a registered runner up, else
// this agent; an open circuit breaker counts as down (breaker_route.go).
func (b *Bridge) route(ctx context.Context, ctxID uint64, j *model.RunnerJob) (peer.ID, string, error) {
	out, err := route.Resolve(ctx, routeView{b}, route.Query{Context: ctxID, To: j.Runner, Type: j.ScriptType},
		b.routeOptions())
	switch {
	case err != nil:
		return "", "", err
	case out.Kind == route.Here:
		return b.self, "", nil
	case out.Kind == route.Peer:
		p, err := b.names.decode(out.Peer) // checked by routeOptions' PeerID
		return p, "", err
	}
	return "", out.Why, nil
}

// routeOptions is how the bridge reads a job's runner field: runner:<id>
// or a bare id, a peer ID (checked), or none; what names nobody valid
// waits with the reason, and a job left to the agent goes to a
// registered runner before this agent.
func (b *Bridge) routeOptions() route.Options {
	return route.Options{Self: b.names.name(b.self), LocalTypes: b.cfg.LocalTypes, BareID: true,
		PeerID: b.checkPeer, OnBad: route.Wait, Open: route.OpenRegistered, Presence: routeView{b}}
}

// checkPeer is route.Options.PeerID: s as written, when it decodes.
func (b *Bridge) checkPeer(s string) (string, error) {
	_, err := b.names.decode(s)
	return s, err
}

// routeView is what the routing rule reads of the bridge: the runner
// records (through the registry's cache), the peer table and the
// breakers.
type routeView struct{ b *Bridge }

func (v routeView) Runner(ctx context.Context, ctxID, id uint64) (*model.Runner, error) {
	return v.b.st.Registry.LoadRunner(ctx, ctxID, id)
}

func (v routeView) Runners(ctx context.Context, ctxID uint64, fresh bool) ([]*model.Runner, error) {
	return v.b.runners.of(ctx, v.b.st.Registry, ctxID, fresh)
}

func (v routeView) Peers(ctx context.Context) ([]*model.Peer, error) { return v.b.tr.Peers(ctx) }

func (v routeView) Refused(peerID string) (string, bool) {
	s, refused := v.b.breakers.refuses(peerID, false)
	return s.State, refused
}

// outgoing builds the payload of an outbox message being (re)sent, from
// the message and its job as they are in the store.
func (b *Bridge) outgoing(ctx context.Context, ctxID uint64, key string, m *model.Message,
	job *model.RunnerJob) (*built, error) {
	if m.MessageType == model.MsgTypeResult {
		return b.resultPayload(ctx, ctxID, key, m)
	}
	if pre := fresh(ctxID, key, m, job); pre != nil {
		return pre, nil
	}
	return nil, fmt.Errorf("cannot send message_type %q", m.MessageType)
}
