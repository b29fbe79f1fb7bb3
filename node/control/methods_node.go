package control

import (
	"context"
	"sort"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
)

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
	// MDNS and NATPortMap say whether the overlay runs mDNS discovery
	// and UPnP / NAT-PMP port mapping: what runs, not what the config asks.
	MDNS       bool `json:"mdns"`
	NATPortMap bool `json:"nat_port_map"`
	// MDNSOff says why mDNS, asked for by the config, does not run: the
	// agent started without it (no interface can multicast, as in a
	// container or a network namespace with only loopback).
	MDNSOff     string   `json:"mdns_off,omitempty"`
	ScriptTypes []string `json:"script_types"`
	API         string   `json:"api,omitempty"`
	Socket      string   `json:"socket"`
	// RedisSocket: the store's unix socket, when it is on one (redis-cli -s).
	RedisSocket string `json:"redis_socket,omitempty"`
	UptimeSec   int64  `json:"uptime_seconds"`
	Draining    bool   `json:"draining"`
	// Isolation says how jobs are contained and limited: in cgroups (where,
	// how they are killed, which limits) or in process groups, and why.
	Isolation string `json:"isolation,omitempty"`
	// Containment says whether and how this agent contains jobs of other
	// actors (DESIGN §5), or why it cannot and what fixes it.
	Containment string `json:"containment,omitempty"`
}

func (h *Handlers) registerNodeMethods() {
	api.Register(h.table, "node.info", "Version, peer ID, roles, contexts and addresses of this agent.",
		func(ctx context.Context, _ struct{}) (*InfoView, error) { return h.info(ctx) })
}

func (h *Handlers) info(ctx context.Context) (*InfoView, error) {
	v := &InfoView{Version: h.Version, PeerID: h.ID.PeerID().String(), AgeRecip: h.ID.AgeRecipient(),
		Roles: h.Cfg.Roles, DataDir: h.Cfg.DataDir, Store: h.StoreKind, Persistent: h.Persistent,
		API: h.APIAddr(), Socket: h.Socket, RedisSocket: h.RedisSocket, Draining: h.Draining(),
		UptimeSec: int64(time.Since(h.Started).Seconds()), ListenAddrs: h.listenAddrs(),
		ScriptTypes: h.ScriptTypes(), Contexts: []uint64{}}
	if h.Self != nil {
		v.ActorID = h.Self.ID
	}
	if h.Overlay != nil {
		e := h.Overlay.Exposure()
		v.MDNS, v.NATPortMap = e.MDNS, e.PortMap
		v.MDNSOff = h.Overlay.MDNSOff()
	}
	if h.Runner != nil {
		v.Isolation = h.Runner.Isolation().String()
		v.Containment = h.Runner.Containment()
	}
	cs, err := h.Store.ListContexts(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		v.Contexts = append(v.Contexts, c.ID)
	}
	sort.Slice(v.Contexts, func(i, j int) bool { return v.Contexts[i] < v.Contexts[j] })
	return v, nil
}

func (h *Handlers) registerDrainMethods() {
	api.Register(h.table, "node.drain", "Drain and stop the agent: no new work, running jobs finish (bounded), outbox flushed, exit 0.",
		func(context.Context, struct{}) (map[string]any, error) {
			h.Drain()
			return map[string]any{"draining": true, "grace_seconds": int64(h.Cfg.Runner.DrainGrace.Seconds())}, nil
		})
}

// listenAddrs are the overlay's addresses.
func (h *Handlers) listenAddrs() []string {
	out := []string{}
	if h.Overlay != nil {
		for _, a := range h.Overlay.Addrs() {
			out = append(out, a.String())
		}
	}
	return out
}
