package node

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
)

// startScheduler starts the flow scheduler (supervisor role).
func (n *Node) startScheduler(ctx context.Context) error {
	s, err := scheduler.New(scheduler.Config{
		Self:            n.id.PeerID().String(),
		LocalTypes:      n.scriptTypes,
		Contexts:        n.contextIDs,
		PeerUp:          n.peerUp,
		RunnerLostAfter: n.cfg.Supervisor.RunnerLostAfter,
		Lost:            n.flowJobLost, // the bridge's circuit breaker counts it
		GrantFiles:      n.grantFiles,  // files.go
		Stop: func(ctx context.Context, ctxID uint64, key string, j *model.RunnerJob) error {
			_, err := n.stopper.Stop(ctx, ctxID, key, j.Runner)
			return err
		},
	}, schedulerStore(n.store), n.log.With("part", "scheduler"))
	if err != nil {
		return err
	}
	if err := s.Start(ctx); err != nil {
		return err
	}
	n.sched = s
	n.parts.sched = part{"scheduler", s.Shutdown}
	return nil
}

func (n *Node) peerUp(id string) bool {
	p, err := peer.Decode(id)
	return err == nil && n.overlay != nil && n.overlay.Up(p)
}
