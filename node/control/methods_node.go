package node

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// classify maps domain errors to JSON-RPC codes.
func classify(err error) int {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return api.CodeNotFound
	case errors.Is(err, store.ErrDenied):
		return api.CodeDenied
	case errors.Is(err, store.ErrExists), errors.Is(err, model.ErrBadTransition), errors.Is(err, store.ErrFenced):
		return api.CodeConflict
	case errors.Is(err, store.ErrBadContext), errors.Is(err, model.ErrBadField):
		return api.CodeInvalidParams
	}
	return 0
}

// registerMethods fills the method table; each noun has its own file.
func (n *Node) registerMethods() {
	n.registerNodeMethods()
	n.registerActorMethods()
	n.registerContextMethods()
	n.registerJobMethods()
	n.registerJobMoreMethods()
	n.registerDrainMethods()
	n.registerExtraMethods()
	api.AddDiscover(n.table, "hyphae", Version)
}

// InfoView answers node.info and /info.
type InfoView struct {
	Version     string   `json:"version"`
	PeerID      string   `json:"peer_id"`
	AgeRecip    string   `json:"age_recipient"`
	ActorID     uint64   `json:"actor_id"`
	Roles       []string `json:"roles"`
	DataDir     string   `json:"data_dir"`
	Store       string   `json:"store"`
	Persistent  bool     `json:"persistent"`
	Contexts    []uint64 `json:"contexts"`
	ListenAddrs []string `json:"listen_addrs"`
	ScriptTypes []string `json:"script_types"`
	API         string   `json:"api,omitempty"`
	Socket      string   `json:"socket"`
	UptimeSec   int64    `json:"uptime_seconds"`
	Draining    bool     `json:"draining"`
}

func (n *Node) registerNodeMethods() {
	api.Register(n.table, "node.info", "Version, peer ID, roles, contexts and addresses of this agent.",
		func(ctx context.Context, _ struct{}) (*InfoView, error) { return n.info(ctx) })
}

func (n *Node) info(ctx context.Context) (*InfoView, error) {
	v := &InfoView{Version: Version, PeerID: n.id.PeerID().String(), AgeRecip: n.id.AgeRecipient(),
		Roles: n.cfg.Roles, DataDir: n.cfg.DataDir, Store: "external", Persistent: true,
		API: n.apiAddr, Socket: n.paths.Socket, Draining: n.draining.Load(),
		UptimeSec: int64(time.Since(n.started).Seconds()), ListenAddrs: n.listenAddrs(),
		ScriptTypes: n.scriptTypes(), Contexts: []uint64{}}
	if n.self != nil {
		v.ActorID = n.self.ID
	}
	if n.redis != nil {
		v.Store, v.Persistent = n.redis.Kind(), n.redis.Persistent()
	}
	cs, err := n.store.ListContexts(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		v.Contexts = append(v.Contexts, c.ID)
	}
	sort.Slice(v.Contexts, func(i, j int) bool { return v.Contexts[i] < v.Contexts[j] })
	return v, nil
}
