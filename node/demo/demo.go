// Package demo runs `hyphae demo`: three agents — alice, bob and carol — in
// one process, each with its own actor key, embedded store and libp2p
// host. Alice and carol each create a context and grant bob the executor
// role; bob runs a flow whose jobs land on alice's and carol's runners,
// passing results from job to job; the demo shows the DAG as it runs,
// prints the results and explains what crossed the wire.
package demo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
)

// Options tunes a demo run.
type Options struct {
	Dir     string    // where the agents' data dirs go (kept); default a temp dir, removed at the end
	Keep    bool      // leave the agents running until ctx ends (Ctrl-C)
	Out     io.Writer // the story; default stdout
	Log     *slog.Logger
	Timeout time.Duration // bound on the whole run; default 2m
}

// agent is one demo participant.
type agent struct {
	name string
	dir  string
	n    *node.Node
	c    *api.Client
	info wire.InfoView
}

// Run plays the demo; it returns an error if any step fails.
func Run(ctx context.Context, o Options) error {
	o.defaults()
	temp := o.Dir == ""
	if temp {
		d, err := os.MkdirTemp("", "hyphae-demo-")
		if err != nil {
			return err
		}
		o.Dir = d
		// A temp dir goes whatever ends the demo, Ctrl-C included, and
		// after the agents have stopped (defers run last first); --dir
		// is how to keep the agents' data.
		defer os.RemoveAll(d)
	}
	var cancel context.CancelFunc
	if o.Keep { // runs until interrupted
		ctx, cancel = context.WithCancel(ctx)
	} else {
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
	}
	defer cancel()
	s := &story{o: o}
	agents, err := s.startAgents(ctx)
	defer s.stopAgents(agents)
	if err != nil {
		return err
	}
	if err := s.play(ctx, agents); err != nil {
		return err
	}
	if o.Keep {
		s.keep(ctx, agents, temp)
	}
	return nil
}

func (o *Options) defaults() {
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
}

// story holds the demo's output.
type story struct {
	o      Options
	start  time.Time
	agents []*agent
}

func (s *story) say(format string, args ...any) { fmt.Fprintf(s.o.Out, format+"\n", args...) }

// startAgents starts alice first, then bob and carol bootstrapping to her.
func (s *story) startAgents(ctx context.Context) ([]*agent, error) {
	s.start = time.Now()
	s.say("Hyphae demo: three agents in this process, each with its own actor key, store and libp2p host.\n")
	var agents []*agent
	var boot []string
	for _, name := range []string{"alice", "bob", "carol"} {
		a, err := s.startAgent(ctx, name, boot)
		if err != nil {
			return agents, fmt.Errorf("start %s: %w", name, err)
		}
		agents = append(agents, a)
		s.agents = agents
		if boot == nil && len(a.info.ListenAddrs) > 0 {
			boot = a.info.ListenAddrs[:1]
		}
		s.say("  %-6s %s  store: %s", name, a.info.PeerID, storeNote(a.info))
	}
	return agents, nil
}

func storeNote(i wire.InfoView) string {
	if i.Persistent {
		return i.Store + " (persistent)"
	}
	return i.Store + " (in memory: install redis-server to keep data)"
}

func (s *story) startAgent(ctx context.Context, name string, boot []string) (*agent, error) {
	dir := filepath.Join(s.o.Dir, name)
	if _, err := os.Stat(node.PathsFor(dir).Key); err != nil {
		if _, err := node.Init(dir, false); err != nil {
			return nil, err
		}
	}
	f := false
	// The API is on the socket only, but --keep gives the first agent a
	// TCP API on a free loopback port, so that its dashboard can be opened
	// (keep prints a login URL).
	apiListen := "off"
	if s.o.Keep && len(s.agents) == 0 {
		apiListen = "127.0.0.1:0"
	}
	cfg := &config.Config{DataDir: dir, API: config.API{Listen: apiListen},
		Overlay: config.Overlay{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, Bootstrap: boot, MDNS: &f,
			NATPortMap: &f, PresenceInterval: 500 * time.Millisecond},
		Bus:    config.Bus{TimeoutAck: time.Second},
		Runner: config.Runner{DrainGrace: 5 * time.Second}}
	cfg.Defaults()
	n, err := node.New(cfg, s.o.Log.With("agent", name))
	if err != nil {
		return nil, err
	}
	a := &agent{name: name, dir: dir, n: n, c: api.NewUnixClient(node.PathsFor(dir).Socket)}
	if err := n.Start(ctx); err != nil {
		_ = n.Shutdown(context.Background())
		return nil, err
	}
	return a, a.c.Call(ctx, "node.info", nil, &a.info)
}

func (s *story) stopAgents(agents []*agent) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, a := range agents { // each drains on its own: no reason to queue them
		wg.Add(1)
		go func() { defer wg.Done(); _ = a.n.Shutdown(ctx) }()
	}
	wg.Wait()
}
