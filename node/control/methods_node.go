package control

import (
	"context"
	"sort"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerNodeMethods() {
	api.Register(h.table, "node.info", "Version, peer ID, roles, contexts and addresses of this agent.",
		func(ctx context.Context, _ struct{}) (*wire.InfoView, error) { return h.info(ctx) })
}

func (h *Handlers) info(ctx context.Context) (*wire.InfoView, error) {
	v := &wire.InfoView{Version: h.Version, PeerID: h.ID.PeerID().String(), AgeRecip: h.ID.AgeRecipient(),
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
	cs, err := h.Store.Registry.ListContexts(ctx)
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
