package bridge

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// completeHome writes the result p brings (from the peer its job went to)
// onto the origin job and settles the job's message msgKey, as
// CompleteSentJob does, and in the same step leaves the result at home as
// a message (seed 000 steps 5–6, docs/design.md, "How Hyphae reads the specifications it follows"): message:<caller>:<id> of
// type result, the ended job embedded as its one job and the job's log
// tail as its logs, pushed on the origin context's msg_in for the actor
// to RPOP. A duplicate or late result leaves no message (the script is
// fenced as the completion is); its message id is simply not used.
func (b *Bridge) completeHome(ctx context.Context, from peer.ID, p *payload, status model.JobStatus,
	fields model.Hash, msgKey string) error {
	ids, err := b.st.Jobs.NextIDs(ctx, p.OriginCtx, "message")
	if err != nil {
		return err
	}
	logs := lastLines(p.Logs, ResultLogLines)
	home := store.ResultHome{ID: ids[0], From: b.names.name(from), Logs: logs}
	return b.st.Jobs.CompleteSentJobHome(ctx, p.OriginCtx, p.OriginJob, p.Attempt, status, fields,
		logs, ResultLogLines, msgKey, home)
}
