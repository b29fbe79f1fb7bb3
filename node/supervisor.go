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
		KnownTypes:  n.knownTypes,
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

// knownTypes is every script type this agent or an up peer runs.
func (n *Node) knownTypes() []string {
	types := append([]string{}, n.scriptTypes()...)
	if peers, err := n.store.ListPeers(context.Background()); err == nil {
		for _, p := range peers {
			if p.State == model.PeerUp {
				types = append(types, p.ScriptTypes...)
			}
		}
	}
	sort.Strings(types)
	return slices.Compact(types)
}

// everKnownTypes is what a flow may name: the built-in types, this agent's
// and every type a peer it knows (up or not) announced.
func (n *Node) everKnownTypes(ctx context.Context) ([]string, error) {
	types := append(append([]string{}, executor.BuiltinTypes...), n.scriptTypes()...)
	peers, err := n.store.ListPeers(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range peers {
		types = append(types, p.ScriptTypes...)
	}
	return types, nil
}

func (n *Node) registerExtraMethods() {
	n.registerPeerMethods()
	n.registerMessageMethods()
	n.registerRunnerMethods()
	if n.sched != nil {
		n.registerFlowMethods()
	}
}
