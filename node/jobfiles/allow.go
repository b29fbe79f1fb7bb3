package jobfiles

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// Allow is the Authorizer of the transfer server (docs/design.md, "Trust"):
// peer p may have blob sha for the job ref names here when the job has
// that blob among its files or its inputs, and p is the agent the job was
// sent to (it runs the consuming job), the agent it came from, or an actor
// with a role in the job's context. The error is the reason the peer reads.
func (s *Service) Allow(ctx context.Context, p peer.ID, sha, ref string) error {
	granted := false
	if isGrant(ref) { // grant.go: the job's origin says p runs a consumer
		inner, err := openGrant(ref, p, func(r string) (string, error) { return s.originOf(ctx, r) }, time.Now())
		if err != nil {
			return fmt.Errorf("grant refused: %w", err)
		}
		ref, granted = inner, true
	}
	ctxID, key, err := ParseRef(ref)
	if err != nil {
		return err
	}
	c, err := s.job(ctx, ctxID, key) // job_cache.go: once per batch
	if err != nil {
		return err
	}
	if !c.has(sha) {
		return fmt.Errorf("job %s has no such file", ref)
	}
	j := c.job
	who := p.String()
	if granted || s.sentTo(ctx, ctxID, j) == who || j.Origin().Peer == who {
		return nil
	}
	if _, err := s.look.Authorize(ctx, ctxID, who, model.RoleReader); err == nil {
		return nil
	}
	return fmt.Errorf("peer %s does not run a job that needs these files and has no role in context %d", shortPeer(who), ctxID)
}

// originOf is the agent job ref came from (the one that may grant its
// files).
func (s *Service) originOf(ctx context.Context, ref string) (string, error) {
	ctxID, key, err := ParseRef(ref)
	if err != nil {
		return "", err
	}
	j, err := s.look.LoadJobKey(ctx, ctxID, key)
	if err != nil || j == nil {
		return "", fmt.Errorf("no job %s here", ref)
	}
	return j.Origin().Peer, nil
}

// sentTo is the peer ID job j went to ("" when it stayed here): where its
// result came from, else its job message's destination, else its runner
// field; a name (`hyphae join --name`) is resolved.
func (s *Service) sentTo(ctx context.Context, ctxID uint64, j *model.RunnerJob) string {
	dst := j.Extra[model.ExtraRanOn]
	if dst == "" && j.MessageKey() != "" {
		if m, err := s.look.LoadMessageKey(ctx, ctxID, j.MessageKey()); err == nil && m != nil {
			dst = m.Dst
		}
	}
	if dst == "" {
		dst = j.Runner
	}
	if dst == "" {
		return ""
	}
	if _, err := peer.Decode(dst); err == nil {
		return dst
	}
	if id, err := s.look.PeerByName(ctx, dst); err == nil {
		return id
	}
	return ""
}
