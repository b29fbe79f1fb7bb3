package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// A job sent to another agent keeps its whole log there; its result brings
// only the last ResultLogLines home. So that `job logs -f` can follow it
// while it runs (and read all of it afterwards), the origin asks the agent
// it went to, with a status message: request {ref, origin_ctx, origin_job,
// log_from}, answered by a status message {ack_of: ref, logs, next, status,
// more} or {ack_of: ref, error}. Both are unreliable (no outbox, no ack): a
// request that gets no answer in time is the caller's to repeat. The
// answering agent finds the job by (sender, origin context, origin job),
// so an agent can only read the logs of jobs it sent, and only while it
// still holds a role in the job's context.

// Errors of RemoteLogs.
var (
	// ErrNotSent: the job was not sent to another agent by this one.
	ErrNotSent = errors.New("job was not sent to another agent")
	// ErrNotRouted: no agent has taken the job yet.
	ErrNotRouted = errors.New("no agent has taken the job yet")
	// ErrUnreachable: the agent the job went to is not connected.
	ErrUnreachable = errors.New("the agent running the job is not connected")
	// ErrNoAnswer: the agent the job went to did not answer in time.
	ErrNoAnswer = errors.New("the agent running the job did not answer")
)

// RefusedError is another agent's refusal to answer RemoteLogs.
type RefusedError struct {
	Peer   string // the agent that refused
	Reason string // its words
}

func (e *RefusedError) Error() string { return e.Peer + ": " + e.Reason }

const (
	// LogsWait is how long RemoteLogs waits for an answer.
	LogsWait = 3 * time.Second
	// logsReplyLines and logsReplyBytes bound the lines in one answer
	// (well under Config.MaxSize once sealed); the caller asks again from
	// Next for the rest.
	logsReplyLines = 1000
	logsReplyBytes = 256 << 10
)

// RemoteLog is a piece of the log of a job sent away, as its runner's
// agent holds it.
type RemoteLog struct {
	Lines  []string // from the index asked for on
	Next   int64    // the index after the last line
	Status string   // the job's status there
	More   bool     // more lines than one answer holds: ask again from Next
	Runner string   // the agent asked
	Meta   []string // each line's store.LogLine meta, when that agent keeps it (else fewer, or none)
}

// logWaiters matches answers to RemoteLogs' requests.
type logWaiters struct {
	mu   sync.Mutex
	seq  uint64                // guarded by mu
	boot string                // tells this run's refs from an earlier run's
	wait map[string]*logWaiter // by request ref; guarded by mu
}

type logWaiter struct {
	from peer.ID
	ch   chan *payload // buffered, 1
}

func newLogWaiters() *logWaiters {
	return &logWaiters{boot: strconv.FormatInt(time.Now().UnixNano(), 36), wait: map[string]*logWaiter{}}
}

// add registers a request to from and returns its ref and a func that
// removes it.
func (w *logWaiters) add(ctxID uint64, from peer.ID) (string, *logWaiter, func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	ref := makeRef(ctxID, "logs:"+w.boot+":"+strconv.FormatUint(w.seq, 10))
	lw := &logWaiter{from: from, ch: make(chan *payload, 1)}
	w.wait[ref] = lw
	return ref, lw, func() { w.mu.Lock(); delete(w.wait, ref); w.mu.Unlock() }
}

// answer hands p to the request it answers; false when there is none
// from that peer (late, duplicate or a stranger's).
func (w *logWaiters) answer(from peer.ID, p *payload) bool {
	w.mu.Lock()
	lw := w.wait[p.AckOf]
	if lw == nil || lw.from != from {
		w.mu.Unlock()
		return false
	}
	delete(w.wait, p.AckOf)
	w.mu.Unlock()
	lw.ch <- p
	return true
}

// RemoteLogs asks the agent that job jobKey of context ctxID was sent to,
// by job message msgKey, for the job's log lines from index from on. It
// fails with ErrNotSent, ErrNotRouted, ErrUnreachable or ErrNoAnswer
// (wrapped), or with the other agent's refusal (*RefusedError).
func (b *Bridge) RemoteLogs(ctx context.Context, ctxID uint64, jobKey, msgKey string, from int64) (*RemoteLog, error) {
	if msgKey == "" {
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %w", jobKey, ErrNotSent)
	}
	m, err := b.st.Bus.LoadMessageKey(ctx, ctxID, msgKey)
	if errors.Is(err, store.ErrNotFound) {
		err = ErrNotSent
	}
	if err != nil {
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %w", jobKey, err)
	}
	if m.Dst == "" {
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %w", jobKey, ErrNotRouted)
	}
	dst, err := b.names.decode(m.Dst)
	if err != nil {
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %w", jobKey, ErrNotSent)
	}
	if dst != b.self && !b.tr.Connected(dst) {
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %s: %w", jobKey, m.Dst, ErrUnreachable)
	}
	ref, lw, done := b.logs.add(ctxID, dst)
	defer done()
	p := &payload{Ref: ref, OriginCtx: ctxID, OriginJob: jobKey, LogFrom: from}
	if err := b.deliver(ctx, dst, envelope.TypeStatus, m.ContextID, 0, p); err != nil {
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %w", jobKey, err)
	}
	t := time.NewTimer(LogsWait)
	defer t.Stop()
	select {
	case a := <-lw.ch:
		if a.Error != "" {
			return nil, &RefusedError{Peer: m.Dst, Reason: a.Error}
		}
		return &RemoteLog{Lines: a.Logs, Next: a.Next, Status: a.Status, More: a.More, Runner: m.Dst, Meta: a.LogMeta}, nil
	case <-t.C:
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %s: %w within %v", jobKey, m.Dst, ErrNoAnswer, LogsWait)
	case <-ctx.Done():
		return nil, fmt.Errorf("bridge.RemoteLogs %s: %w", jobKey, ctx.Err())
	}
}

// onStatus answers a request for a job's log lines, or hands an answer to
// the RemoteLogs call waiting for it.
func (b *Bridge) onStatus(ctx context.Context, from peer.ID, target uint64, p *payload) error {
	if p.AckOf != "" {
		if !b.logs.answer(from, p) {
			b.refused(from, "status_unasked", nil)
		}
		return nil
	}
	if p.Ref == "" {
		b.refused(from, "bad_payload", errors.New("status request without ref"))
		return nil
	}
	a, err := b.logsFor(ctx, from, target, p)
	if err != nil {
		return err // the store failed: no answer, the asker's call fails
	}
	a.AckOf = p.Ref
	return b.deliver(ctx, from, envelope.TypeStatus, target, 0, a)
}

// logsFor is the answer to from's request p for the log of a job it sent
// into context target.
func (b *Bridge) logsFor(ctx context.Context, from peer.ID, target uint64, p *payload) (*payload, error) {
	sender := b.names.name(from)
	key, err := b.st.Bus.InboundJob(ctx, target, sender, p.OriginCtx, p.OriginJob)
	if errors.Is(err, store.ErrNotFound) {
		return &payload{Error: fmt.Sprintf("logs: no job %s from this agent here (context %d)", p.OriginJob, target)}, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := b.st.Registry.Authorize(ctx, target, sender, model.RoleReader); err != nil {
		b.refused(from, "unauthorized", nil)
		return &payload{Error: "logs refused: " + err.Error()}, nil
	}
	if p.LogFrom < 0 {
		return &payload{Error: "logs: negative log_from"}, nil
	}
	// The status is read before the lines: once it is final, the lines
	// read after it are all there are (the runner writes the last ones
	// with the final status).
	status, err := b.st.Jobs.LoadJobStatus(ctx, target, key)
	if err != nil {
		return nil, err
	}
	ll, err := b.st.Logs.ReadLogLines(ctx, target, key, p.LogFrom)
	if err != nil {
		return nil, err
	}
	lines, metas := make([]string, len(ll)), make([]string, len(ll))
	for i, l := range ll {
		lines[i] = l.Text
		if l.TimeMS != 0 || l.Stream != "" {
			metas[i] = l.Meta()
		}
	}
	bounded := boundLines(lines, logsReplyLines, logsReplyBytes)
	more := len(bounded) < len(lines)
	return &payload{Logs: bounded, Next: p.LogFrom + int64(len(bounded)), Status: string(status), More: more,
		LogMeta: metas[:len(bounded)]}, nil
}

// boundLines is the first of lines within n lines and size bytes (at
// least one line).
func boundLines(lines []string, n, size int) []string {
	total := 0
	for i, l := range lines {
		total += len(l) + 8 // JSON quoting and commas, roughly
		if i > 0 && (i >= n || total > size) {
			return lines[:i]
		}
	}
	return lines
}
