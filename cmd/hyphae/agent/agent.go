// Package agent is what the hyphae CLI needs from an agent in its own
// process: the data dir's paths, the version, the actor key, `hyphae
// init`, `hyphae run` and `hyphae demo`. It implements cli.Agent, so that
// package cli reaches the agent's internals only through it and talks to a
// running agent only through its API client; main hands it in.
package agent

import (
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/config"
)

// Agent is the in-process agent behind the CLI's local commands. It holds
// no state: every method works from the data dir it is given.
type Agent struct{}

// New returns the Agent.
func New() Agent { return Agent{} }

// DefaultDataDir is $HYPHAE_DATA_DIR, else ~/.hyphae.
func (Agent) DefaultDataDir() string { return config.DefaultDataDir() }

// Socket is the path of the API socket of the agent on dataDir.
func (Agent) Socket(dataDir string) string { return node.PathsFor(dataDir).Socket }

// Version is this binary's version, the one every surface reports.
func (Agent) Version() string { return node.Version }

// Identity reads dataDir's actor key: its peer ID and age recipient.
func (Agent) Identity(dataDir string) (peerID, ageRecipient string, err error) {
	id, err := identity.Load(node.PathsFor(dataDir).Key)
	if err != nil {
		return "", "", err
	}
	return id.PeerID().String(), id.AgeRecipient(), nil
}

// Init creates dataDir (key, config, token, and a swarm key when asked)
// and writes to w what it did, or that it found the data dir made already.
func (Agent) Init(w io.Writer, dataDir string, swarmKey bool) error {
	res, err := node.Init(dataDir, swarmKey)
	if err != nil {
		return err
	}
	if res.Existed {
		fmt.Fprintf(w, "%s is initialised already: nothing written\n", res.Paths.Dir)
		fmt.Fprintf(w, "  peer id:       %s\n", res.Identity.PeerID())
		fmt.Fprintf(w, "  age recipient: %s\n", res.Identity.AgeRecipient())
		return nil
	}
	fmt.Fprintf(w, "initialised %s\n", res.Paths.Dir)
	fmt.Fprintf(w, "  peer id:       %s\n", res.Identity.PeerID())
	fmt.Fprintf(w, "  age recipient: %s\n", res.Identity.AgeRecipient())
	for _, f := range res.Created {
		fmt.Fprintf(w, "  wrote          %s\n", f)
	}
	if res.SwarmKey != "" {
		fmt.Fprintf(w, "copy %s to every agent of this private network\n", res.SwarmKey)
	}
	fmt.Fprintf(w, "next: hyphae run --data-dir %s\n", res.Paths.Dir)
	return nil
}
