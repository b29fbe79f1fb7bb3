package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/hyphae-run/hyphae/node/jobfiles"
	"github.com/hyphae-run/hyphae/overlay/bridge"
)

// openFiles opens the content store of files between jobs (node/jobfiles),
// before the runner: outputs need only the store.
func (n *Node) openFiles(context.Context) error {
	f := n.cfg.Files
	s, err := jobfiles.Open(jobfiles.Config{DataDir: n.cfg.DataDir, Limits: f.Limits(), MaxStoreMB: f.MaxStoreMB,
		Log: n.log.With("part", "files")}, filesLookup{n.store})
	if err != nil {
		return err
	}
	n.files = s
	return nil
}

// serveFiles serves the store on the overlay's host, under
// /hyphae/files/1.0.0; it stops just before the overlay does.
func (n *Node) serveFiles(context.Context) error {
	if err := n.files.Serve(n.overlay.Host()); err != nil {
		return err
	}
	stopOverlay := n.parts.overlay.shutdown
	n.parts.overlay.shutdown = func(ctx context.Context) error {
		return errors.Join(n.files.Shutdown(ctx), stopOverlay(ctx))
	}
	return nil
}

// fileStats is the file server's counts, for /metrics; zero before the
// store opens.
func (n *Node) fileStats() transfer.Stats {
	if n.files == nil {
		return transfer.Stats{}
	}
	return n.files.Stats()
}

// filesLookup is what jobfiles' Authorizer reads of the store.
type filesLookup struct{ st *store.Store }

func (l filesLookup) LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error) {
	return l.st.Jobs.LoadJobKey(ctx, ctxID, key)
}

func (l filesLookup) LoadMessageKey(ctx context.Context, ctxID uint64, key string) (*model.Message, error) {
	return l.st.Bus.LoadMessageKey(ctx, ctxID, key)
}

func (l filesLookup) Authorize(ctx context.Context, id uint64, pubkey string, role model.Role) (*model.Actor, error) {
	return l.st.Registry.Authorize(ctx, id, pubkey, role)
}

func (l filesLookup) PeerByName(ctx context.Context, name string) (string, error) {
	return l.st.Registry.PeerByName(ctx, name)
}

// filesPruned releases the files the pruned jobs held and prunes the
// content store (retention's OnPruned).
func (n *Node) filesPruned(ctxID uint64, keys []string) {
	for _, k := range keys {
		if err := n.files.Release(ctxID, k); err != nil {
			n.log.Warn("files: release a pruned job's files", "context", ctxID, "job", k, "err", err)
		}
	}
	p, err := n.files.Prune()
	if err != nil {
		n.log.Warn("files: prune the content store", "err", err)
		return
	}
	if p.Blobs > 0 || p.Parts > 0 {
		n.log.Info("files: pruned", "blobs", p.Blobs, "parts", p.Parts, "bytes", p.Bytes)
	}
}

// grantFiles signs, as this agent, that peer to may have the files of
// ref on the agent that ran that job (scheduler.Config.GrantFiles).
func (n *Node) grantFiles(ref, to string) (string, error) {
	return jobfiles.SignGrant(n.id.PrivKey(), ref, to, time.Now().Add(jobfiles.GrantTTL))
}

// filesLists carries a files list too long for a result apart, as a blob
// of the content store (bridge.FilesLists); what no retry can fetch is
// bridge.ErrListRefused.
type filesLists struct{ s *jobfiles.Service }

func (l filesLists) PublishList(ctx context.Context, ctxID uint64, key, list string) (string, error) {
	return l.s.PublishList(ctx, ctxID, key, list)
}

// FetchInputsList: only a bad entry is final; a refusal may be the origin
// not having recorded yet where the job went, so it counts as a try.
func (l filesLists) FetchInputsList(ctx context.Context, p peer.ID, ref, desc string) (string, error) {
	v, err := l.s.FetchInputsList(ctx, p, ref, desc)
	if errors.Is(err, jobfiles.ErrBadList) {
		err = fmt.Errorf("%w: %w", bridge.ErrListRefused, err)
	}
	return v, err
}

func (l filesLists) FetchList(ctx context.Context, p peer.ID, ref, desc string, ctxID uint64, key string) (string, error) {
	v, err := l.s.FetchList(ctx, p, ref, desc, ctxID, key)
	if errors.Is(err, jobfiles.ErrBadList) || errors.Is(err, files.ErrRefused) || errors.Is(err, files.ErrNotFound) {
		err = fmt.Errorf("%w: %w", bridge.ErrListRefused, err)
	}
	return v, err
}
