package node

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
)

// startComponents starts runner, overlay, bridge and scheduler as the
// configured roles ask.
func (n *Node) startComponents(ctx context.Context) error {
	return nil
}

// contextsChanged tells components that the set of contexts changed.
func (n *Node) contextsChanged() {}

func (n *Node) listenAddrs() []string { return []string{} }

func (n *Node) scriptTypes() []string { return []string{} }

func (n *Node) registerExtraMethods() {}

func (n *Node) submitRemote(ctx context.Context, p JobRunParams) (*JobView, error) {
	return nil, api.Errorf(api.CodeUnavailable, "remote jobs are not available yet")
}

func timeSince(t time.Time) time.Duration { return time.Since(t) }
