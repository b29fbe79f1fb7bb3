package bridge

import (
	"context"
	"errors"
	"maps"
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// Inputs lists apart (docs/design.md, "Files between jobs"). A job
// message carries the job's inputs list: a consumer of a build tree of
// thousands of files makes one past the overlay's message limit. Then the
// origin stores the list as a blob held by its job (PublishList), the
// job's inputs field says the list is apart (inputsApartMark, which an
// agent that cannot fetch it fails the job on rather than run it without
// its inputs), and the message carries the blob's entry
// (payload.InputsList). The runner, once the sender holds the executor
// role, fetches the list through the origin job's ref (the trust rule lets
// the agent the job went to have it) and only then takes the job: until
// it has, the job message is not acknowledged, so a cut fetch is tried
// again when the origin resends. A list that cannot be had refuses the
// job with the reason, which ends it at its origin.

// inputsApartFrom is the size of an inputs list below which a job message
// is not measured for it: such a list never makes a message too large.
const inputsApartFrom = 64 << 10

// inputsApartMark is the inputs field of a job whose list travels apart.
const inputsApartMark = `"apart: the inputs list is fetched from the job's origin (inputs_list)"`

// inputsOut carries the inputs list of job payload pre apart when it would
// make the message too large to send. Where it cannot, pre is left as it
// is, and the send then ends the job as too large (tooLarge).
func (b *Bridge) inputsOut(ctx context.Context, pre *built) {
	if pre == nil || pre.typ != envelope.TypeJob || b.cfg.FilesLists == nil {
		return
	}
	p := pre.p
	v := p.Job[model.ExtraInputs]
	if len(v) < inputsApartFrom || len(p.encode()) <= maxResult {
		return
	}
	desc, err := b.cfg.FilesLists.PublishList(ctx, p.OriginCtx, p.OriginJob, v)
	if err != nil {
		b.log.Warn("bridge: inputs list apart", "context", p.OriginCtx, "job", p.OriginJob, "err", err)
		return
	}
	q := *p
	q.Job = maps.Clone(p.Job)
	q.Job[model.ExtraInputs], q.InputsList = inputsApartMark, desc
	pre.p = &q
}

// inputsApart handles job p from peer from whose inputs list travels
// apart: once from holds the executor role in context target, the list
// is fetched from it, and the job handled again with its list in it.
func (b *Bridge) inputsApart(ctx context.Context, from peer.ID, target uint64, p *payload,
	refuse func(format string, args ...any) error) error {
	sender := b.names.name(from)
	if _, err := b.st.Registry.Authorize(ctx, target, sender, model.RoleExecutor); err != nil {
		if errors.Is(err, store.ErrDenied) {
			return refuse("refused by %s: %v%s", b.self, err, grantHint(target, sender, err))
		}
		return err // store trouble: no reply, the sender will resend
	}
	if b.cfg.FilesLists == nil {
		return refuse("inputs: the job's inputs list travels apart, and %s does not carry files between jobs", b.self)
	}
	if !b.inApart.start(p.Ref) {
		return nil // a fetch under way handles the job when it ends
	}
	b.goIfRunning(func() { b.fetchInputs(from, target, p) })
	return nil
}

// fetchInputs fetches the inputs list of job p from from and handles the
// job with it; a list that cannot be had (a bad entry, or failing
// maxListTries times) refuses the job, any other failure waits for the
// origin's resend.
func (b *Bridge) fetchInputs(from peer.ID, target uint64, p *payload) {
	ref := strconv.FormatUint(p.OriginCtx, 10) + "/" + p.OriginJob
	list, err := b.cfg.FilesLists.FetchInputsList(b.ctx, from, ref, p.InputsList)
	tries := b.inApart.end(p.Ref, err)
	switch {
	case err == nil:
		q := *p
		q.Job = maps.Clone(p.Job)
		q.Job[model.ExtraInputs], q.InputsList = list, ""
		if err := b.onJob(b.ctx, from, target, &q); err != nil && b.ctx.Err() == nil {
			b.log.Warn("bridge: job with its inputs list", "from", b.names.name(from), "job", p.OriginJob, "err", err)
		}
	case b.ctx.Err() != nil:
	case errors.Is(err, ErrListRefused) || tries >= maxListTries:
		if errors.Is(err, ErrListRefused) {
			b.refused(from, reasonMalformedJob, err) // a bad entry: held against its sender
		}
		b.reply(b.ctx, from, envelope.TypeError, target, p.Ref, "inputs: the job's inputs list, too long for a message, "+
			"could not be fetched from its origin: "+err.Error())
	default:
		b.log.Warn("bridge: fetch an inputs list; waiting for the job again", "from", b.names.name(from),
			"job", p.OriginJob, "tries", tries, "err", err)
	}
}
