package node

import "context"

// startScheduler starts the flow scheduler (supervisor role).
func (n *Node) startScheduler(ctx context.Context) error { return nil }

func (n *Node) registerExtraMethods() {
	n.registerPeerMethods()
	n.registerMessageMethods()
	n.registerRunnerMethods()
}
