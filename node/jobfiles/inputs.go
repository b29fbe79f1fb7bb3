package jobfiles

import (
	"context"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// Inputs brings job's input sets into the store (from the agent that has
// them, when this one does not) and writes each into dir's
// in/<name>/, returning HYPHAE_IN_<NAME>_DIR for each named set and
// HYPHAE_IN_DIR for in/ (executor.Files).
func (s *Service) Inputs(ctx context.Context, ctxID uint64, jobKey string, job *model.RunnerJob, dir string) ([]string, error) {
	ins, err := files.DecodeInputs(job.InputsJSON())
	if err != nil {
		return nil, err
	}
	hold := holdRef(ctxID, jobKey)
	var env []string
	for _, in := range ins {
		if in.Ref == "" { // files shipped with the job: asked for through its own ref at its origin
			if o := job.Origin(); o.Peer == in.Peer {
				in.Ref = Ref(o.Context, o.Job)
			}
		}
		if err := s.bring(ctx, in, hold); err != nil {
			return nil, err
		}
		folder, err := files.Materialise(ctx, dir, in.Name, in.Files, s.cfg.Limits, s.store.OpenFile)
		if err != nil {
			return nil, err
		}
		env = append(env, inputVar(in.Name)+"="+folder)
	}
	return env, nil
}

// inputVar is the variable naming the folder of input set name.
func inputVar(name string) string {
	if name == "" {
		return "HYPHAE_IN_DIR"
	}
	return "HYPHAE_IN_" + flowfile.EnvName(name) + "_DIR"
}

// bring makes every blob of in present and held for hold: those here
// already are held; the others are fetched from in.Peer.
func (s *Service) bring(ctx context.Context, in files.Input, hold string) error {
	var missing []files.Entry
	for _, e := range in.Files {
		if !s.store.Has(e.SHA256) {
			missing = append(missing, e)
			continue
		}
		if err := s.store.Hold(hold, e.SHA256); err != nil {
			return fmt.Errorf("hold %s: %w", e.Path, err)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	s.mu.Lock()
	client, self := s.client, s.self
	s.mu.Unlock()
	if in.Peer == "" || in.Peer == self {
		return fmt.Errorf("%s: %w in this agent's store", missing[0].Path, files.ErrNotFound)
	}
	if client == nil {
		return errNotServing
	}
	p, err := peer.Decode(in.Peer)
	if err != nil {
		return fmt.Errorf("input %q: peer %q: %w", in.Name, in.Peer, err)
	}
	// The fetch holds what it brings for the serving agent's ref, which
	// names no job here: the job holds them instead, and that hold goes
	// (a failed fetch keeps its verified parts for the next, not holds).
	defer func() { _ = s.store.Release(in.Ref) }()
	if err := client.FetchAll(ctx, p, missing, in.Ref, nil); err != nil {
		return fmt.Errorf("%s: %w", inputName(in.Name), err) // the error names the peer
	}
	for _, e := range missing {
		if err := s.store.Hold(hold, e.SHA256); err != nil {
			return fmt.Errorf("hold %s: %w", e.Path, err)
		}
	}
	return nil
}

func shortPeer(p string) string {
	if len(p) > 16 {
		return p[:8] + "…" + p[len(p)-6:]
	}
	return p
}

// inputName is how errors name input set name.
func inputName(name string) string {
	if name == "" {
		return "the files shipped with the job"
	}
	return name + "'s files"
}
