package node

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// PeerView is a row of peer.list (and `hyphae peers --json`).
type PeerView struct {
	PeerID      string   `json:"peer_id"`
	State       string   `json:"state"`
	Roles       []string `json:"roles"`
	ScriptTypes []string `json:"script_types"`
	Load        int64    `json:"load"`
	Capacity    int64    `json:"capacity"`
	LastSeen    int64    `json:"last_seen"`
	FoundVia    string   `json:"found_via"`
	Addrs       []string `json:"addrs"`
	Version     string   `json:"version"`
}

// MessageView is a message as the API shows it.
type MessageView struct {
	Key     string            `json:"key"`
	Fields  map[string]string `json:"fields"`
	Status  string            `json:"status"`
	Type    string            `json:"message_type"`
	Context uint64            `json:"context_id"`
}

func (n *Node) registerPeerMethods() {
	api.Register(n.table, "peer.list", "The peer table: every agent this one knows, with state, roles, types, load.",
		func(ctx context.Context, _ struct{}) ([]PeerView, error) {
			ps, err := n.store.ListPeers(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]PeerView, 0, len(ps))
			for _, p := range ps {
				out = append(out, PeerView{PeerID: p.PeerID, State: string(p.State), Roles: nzs(p.Roles),
					ScriptTypes: nzs(p.ScriptTypes), Load: p.Load, Capacity: p.Capacity, LastSeen: p.LastSeen,
					FoundVia: p.FoundVia, Addrs: nzs(p.Addrs), Version: p.Version})
			}
			return out, nil
		})
}

func (n *Node) registerMessageMethods() {
	api.Register(n.table, "message.create", "Send a chat or mail message to another agent's context.",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"` // the target context on the recipient
			From    uint64 `json:"from_context,omitempty"`
			Dst     string `json:"dst"`
			Type    string `json:"message_type"`
			Message string `json:"message"`
		}) (*MessageView, error) {
			if _, err := peer.Decode(p.Dst); err != nil {
				return nil, api.InvalidParams("dst", "not a peer ID: %v", err)
			}
			if p.Type != "chat" && p.Type != "mail" {
				return nil, api.InvalidParams("message_type", "%q: want chat or mail (jobs go through job.run)", p.Type)
			}
			origin, err := n.originContext(ctx, max(p.From, p.Context))
			if err != nil {
				return nil, err
			}
			m := &model.Message{CallerID: n.self.ID, ContextID: p.Context, MessageType: model.MessageType(p.Type),
				Message: p.Message, Dst: p.Dst, Timeout: int64(n.cfg.Bus.Timeout.Seconds())}
			if err := n.store.PushMessage(ctx, origin, m, store.MsgOutKey); err != nil {
				return nil, err
			}
			return n.messageLoad(ctx, origin, store.MessageKey(m.CallerID, m.ID))
		})
	api.Register(n.table, "message.load", "Show a message of a context by key (message:<caller>:<id>).",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
			Key     string `json:"key"`
		}) (*MessageView, error) {
			if _, _, err := store.ParseMessageKey(p.Key); err != nil {
				return nil, api.InvalidParams("key", "%v", err)
			}
			return n.messageLoad(ctx, p.Context, p.Key)
		})
	api.Register(n.table, "message.list", "List a context's messages.",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
		}) ([]*MessageView, error) {
			ms, err := n.store.ListMessages(ctx, p.Context)
			if err != nil {
				return nil, err
			}
			out := make([]*MessageView, 0, len(ms))
			for _, m := range ms {
				out = append(out, messageView(store.MessageKey(m.CallerID, m.ID), m))
			}
			return out, nil
		})
}

func (n *Node) messageLoad(ctx context.Context, ctxID uint64, key string) (*MessageView, error) {
	m, err := n.store.LoadMessageKey(ctx, ctxID, key)
	if err != nil {
		return nil, err
	}
	return messageView(key, m), nil
}

func messageView(key string, m *model.Message) *MessageView {
	return &MessageView{Key: key, Fields: m.ToHash(), Status: string(m.Status), Type: string(m.MessageType), Context: m.ContextID}
}

func nzs(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
