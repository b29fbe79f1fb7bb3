package node

import (
	"context"
	"slices"
	"sort"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/scheduler"
)

// startScheduler starts the flow scheduler (supervisor role).
func (n *Node) startScheduler(ctx context.Context) error {
	s, err := scheduler.New(scheduler.Config{
		Self:        n.id.PeerID().String(),
		LocalTypes:  n.scriptTypes,
		Contexts:    n.contextIDs,
		PeerUp:      n.peerUp,
		RunnerGrace: n.cfg.Supervisor.RunnerGrace,
		Stop: func(ctx context.Context, ctxID uint64, key string, j *model.RunnerJob) error {
			_, err := n.stopJob(ctx, ctxID, key, j.Runner)
			return err
		},
	}, n.store, n.log.With("part", "scheduler"))
	if err != nil {
		return err
	}
	if err := s.Start(ctx); err != nil {
		return err
	}
	n.sched = s
	n.addPart("scheduler", s.Shutdown)
	return nil
}

func (n *Node) peerUp(id string) bool {
	p, err := peer.Decode(id)
	return err == nil && n.overlay != nil && n.overlay.Up(p)
}

// flowTypes reads the peers once for a flow's script types: served are
// those this agent or a peer up now runs (a type outside them is a
// warning), known adds the built-in types and those of every peer this
// agent knows, up or not (a type outside them is an error).
func (n *Node) flowTypes(ctx context.Context) (served, known []string, err error) {
	peers, err := n.store.ListPeers(ctx)
	if err != nil {
		return nil, nil, err
	}
	served = append([]string{}, n.scriptTypes()...)
	known = append([]string{}, executor.BuiltinTypes...)
	for _, p := range peers {
		if p.State == model.PeerUp {
			served = append(served, p.ScriptTypes...)
		}
		known = append(known, p.ScriptTypes...)
	}
	sort.Strings(served)
	return slices.Compact(served), append(known, served...), nil
}

func (n *Node) registerExtraMethods() {
	n.registerPeerMethods()
	n.registerMessageMethods()
	n.registerRunnerMethods()
	if n.sched != nil {
		n.registerFlowMethods()
	}
}
