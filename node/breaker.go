package node

import "github.com/hyphae-run/hyphae/overlay/bridge"

// breakerConfig is the bridge's circuit breaker settings from the config
// (breaker.threshold -1: off, which the bridge reads as a zero threshold).
func (n *Node) breakerConfig() bridge.BreakerConfig {
	c := n.cfg.Breaker
	if !c.On() {
		return bridge.BreakerConfig{}
	}
	return bridge.BreakerConfig{Threshold: c.Threshold, Window: c.Window, Cooldown: c.Cooldown}
}

// flowJobLost counts a remote flow job the scheduler gave up on as lost
// as a fault of its peer's, as the bridge counts a lost plain job
// (scheduler.Config.Lost).
func (n *Node) flowJobLost(peerID, reason string) {
	if n.bridge != nil {
		n.bridge.LostJob(peerID, reason)
	}
}
