package overlaybench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hyphae-run/hyphae/overlay"
	"github.com/libp2p/go-libp2p/core/crypto"
)

// convergeTimeout bounds the wait for every agent to see every other.
const convergeTimeout = 3 * time.Minute

// PresenceTraffic starts n agents in this process (loopback TCP, default
// presence interval, no mDNS or DHT; agent i bootstraps to agents 0 and
// i/2), waits until every agent sees every other up, then measures for d:
// gossipsub bytes (in + out, messages and control) and presence messages
// received (duplicates included), per agent per minute.
func PresenceTraffic(n int, d time.Duration) (bytesPerAgentPerMin, msgsPerAgentPerMin float64, err error) {
	if n < 2 || d <= 0 {
		return 0, 0, errors.New("overlaybench.PresenceTraffic: need n >= 2 and d > 0")
	}
	agents, counters, err := startCluster(n)
	defer stopCluster(agents)
	if err != nil {
		return 0, 0, err
	}
	if err := converge(agents); err != nil {
		return 0, 0, err
	}
	b0, m0 := totals(counters)
	start := time.Now()
	time.Sleep(d)
	b1, m1 := totals(counters)
	minutes := time.Since(start).Minutes()
	per := float64(n) * minutes
	return float64(b1-b0) / per, float64(m1-m0) / per, nil
}

// startCluster starts n agents; the returned slice holds those started.
func startCluster(n int) ([]*overlay.Overlay, []*counter, error) {
	var agents []*overlay.Overlay
	var counters []*counter
	log := slog.New(slog.DiscardHandler)
	for i := 0; i < n; i++ {
		cfg := overlay.Config{Listen: []string{"/ip4/127.0.0.1/tcp/0"}}
		if i > 0 {
			cfg.Bootstrap = []string{agents[0].Addrs()[0].String(), agents[i/2].Addrs()[0].String()}
		}
		c := &counter{}
		cfg.PubsubTracer = c
		priv, _, err := crypto.GenerateEd25519Key(rand.Reader)
		if err != nil {
			return agents, counters, err
		}
		info := func() overlay.Info {
			return overlay.Info{Roles: []string{"runner"}, ScriptTypes: []string{"sh"}, Capacity: 4}
		}
		o, err := overlay.New(context.Background(), cfg, priv, newMemTable(), info, log)
		if err != nil {
			return agents, counters, err
		}
		agents, counters = append(agents, o), append(counters, c)
		if err := o.Start(context.Background()); err != nil {
			return agents, counters, err
		}
	}
	return agents, counters, nil
}

// converge waits until every agent sees every other one up.
func converge(agents []*overlay.Overlay) error {
	deadline := time.Now().Add(convergeTimeout)
	for _, a := range agents {
		for _, b := range agents {
			for a != b && !a.Up(b.ID()) {
				if time.Now().After(deadline) {
					return fmt.Errorf("overlaybench: %d agents did not converge in %v", len(agents), convergeTimeout)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	return nil
}

// totals sums the counters.
func totals(cs []*counter) (bytes, msgs int64) {
	for _, c := range cs {
		bytes += c.bytes.Load()
		msgs += c.presence.Load()
	}
	return bytes, msgs
}

// stopCluster shuts every agent down.
func stopCluster(agents []*overlay.Overlay) {
	for _, a := range agents {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = a.Shutdown(ctx)
		cancel()
	}
}
