package bridge

import (
	"context"
	"errors"
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// Files lists apart (docs/design.md, "Files between jobs"). A result
// carries its job's files list, about 240 bytes a file: a build tree of
// thousands of files makes a list past the overlay's message limit. Then
// the runner stores the list as a blob of its content store, held by the
// job (pruned with it), and the result carries only that blob's entry
// (payload.FilesList). The origin fetches the blob over the files
// protocol, through the job's ref at the runner (the trust rule lets the
// job's origin have it), before it writes the result: the origin's job
// ends with its whole list, as if it had come in the message. The fetch
// runs beside the receive workers; until it has ended the result is not
// acknowledged, so a cut fetch is tried again when the runner resends.

// FilesLists is what the bridge uses of the content store to carry a
// files list apart (node/jobfiles).
type FilesLists interface {
	// PublishList stores list, the files list of job key in context
	// ctxID, as a blob held for that job, and returns the entry (JSON)
	// another agent fetches it by.
	PublishList(ctx context.Context, ctxID uint64, key, list string) (desc string, err error)
	// FetchList brings the list of entry desc from peer p, asked for
	// through job ref there, holds it for job key in context ctxID here,
	// and returns it. A wrapped ErrListRefused says no later try can
	// succeed.
	FetchList(ctx context.Context, p peer.ID, ref, desc string, ctxID uint64, key string) (list string, err error)
	// FetchInputsList brings the inputs list of entry desc from peer p,
	// asked for through the job ref there, holding nothing here: the
	// list goes into the job it belongs to. Errors as FetchList's.
	FetchInputsList(ctx context.Context, p peer.ID, ref, desc string) (list string, err error)
}

// ErrListRefused is a files list that will not be fetched whatever the
// tries: a bad entry, past the bound on lists, or refused by its holder.
var ErrListRefused = errors.New("files list refused")

// maxListTries is how many fetches of one result's list may fail before
// the origin's job ends with the reason.
const maxListTries = 3

// listsApart is the results whose lists are being fetched, and the
// failed tries of each (by the result's ref at its sender).
type listsApart struct {
	mu     sync.Mutex
	busy   map[string]bool // guarded by mu
	failed map[string]int  // guarded by mu
}

// start reports whether a fetch for ref may start (none is under way).
func (l *listsApart) start(ref string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy[ref] {
		return false
	}
	if l.busy == nil {
		l.busy, l.failed = map[string]bool{}, map[string]int{}
	}
	l.busy[ref] = true
	return true
}

// end records the end of ref's fetch and returns how many have failed.
func (l *listsApart) end(ref string, err error) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.busy, ref)
	if err == nil {
		delete(l.failed, ref)
		return 0
	}
	l.failed[ref]++
	n := l.failed[ref]
	if n >= maxListTries {
		delete(l.failed, ref)
	}
	return n
}

// listApart fetches the files list of result p from its sender, then
// handles the result again with the list in it. A list that cannot be
// had (refused, or failing maxListTries times) ends the origin's job with
// the reason; any other failure waits for the sender's resend.
func (b *Bridge) listApart(from peer.ID, p *payload) error {
	if b.cfg.FilesLists == nil {
		return b.onResult(b.ctx, from, withoutList(p, "this agent does not carry files between jobs"))
	}
	if !b.apart.start(p.Ref) {
		return nil // a fetch under way handles the result when it ends
	}
	b.goIfRunning(func() {
		list, err := b.cfg.FilesLists.FetchList(b.ctx, from, p.FilesRef, p.FilesList, p.OriginCtx, p.OriginJob)
		tries := b.apart.end(p.Ref, err)
		q := *p
		switch {
		case err == nil:
			q.Files, q.FilesList = list, ""
		case b.ctx.Err() != nil:
			return
		case errors.Is(err, ErrListRefused) || tries >= maxListTries:
			q = *withoutList(p, err.Error())
		default:
			b.log.Warn("bridge: fetch a files list; waiting for the result again", "from", b.names.name(from),
				"context", p.OriginCtx, "job", p.OriginJob, "tries", tries, "err", err)
			return
		}
		if err := b.onResult(b.ctx, from, &q); err != nil && b.ctx.Err() == nil {
			b.log.Warn("bridge: result with its files list", "context", p.OriginCtx, "job", p.OriginJob, "err", err)
		}
	})
	return nil
}

// withoutList is result p ending its job with an error: its files list
// could not be had here, for reason.
func withoutList(p *payload, reason string) *payload {
	q := *p
	q.FilesList = ""
	q.Status = string(model.JobError)
	q.Error = "outputs: the job's files list, too long for a message, could not be fetched from the agent that ran it " +
		"(job " + p.FilesRef + " there): " + reason
	return &q
}
