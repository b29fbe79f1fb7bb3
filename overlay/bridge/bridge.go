package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/internal/lifecycle"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/overlay"
)

// Transport is what the bridge needs of the overlay.
type Transport interface {
	Send(ctx context.Context, to peer.ID, data []byte) error
	Inbox() <-chan overlay.Received
	SetInboxValidator(overlay.InboxValidator)
	Peers(ctx context.Context) ([]*model.Peer, error)
	Up(peer.ID) bool
	Connected(peer.ID) bool
	OnPeerChange(func(*model.Peer))
	// Penalize holds a message this agent refused against its sender
	// (overlay.Overlay.Penalize: peer score and a rate limit).
	Penalize(p peer.ID, reason string)
}

// Config wires the bridge to its node.
type Config struct {
	Self       *identity.Identity
	Contexts   func(context.Context) ([]uint64, error) // local contexts to serve
	LocalTypes func() []string                         // script types this agent runs (nil: none)
	// StopLocal stops a job of this agent's runner.
	StopLocal func(ctx context.Context, ctxID uint64, jobKey string) error
	// Offer, when set, lets a received job be claimed for this agent's
	// runner by the script that materialises it (executor.Offer).
	Offer      func(ctxID uint64) (store.ClaimSpec, func(*store.Claim), bool)
	TimeoutAck time.Duration // first resend after this; default 3s
	// AckDelay is how long a received job's ack waits for the job's
	// result, which acknowledges it too (default 100ms; at most
	// TimeoutAck/4; negative: ack at once).
	AckDelay time.Duration
	Timeout  time.Duration // give up after this; default 10m
	Skew     time.Duration // accepted clock skew; default 2m
	// RunnerGrace: a sent job whose runner's agent has been down this
	// long becomes unknown (model.RunnerUnreachable) until the agent
	// returns (0: never; see reach.go).
	RunnerGrace time.Duration
	// RunnerLostAfter: such a job (not a flow's: the scheduler decides for
	// those) is given up on as lost once its agent has been down this
	// long (0: never; it waits for the agent); a result kept by the agent
	// for this long more than Timeout is still resent.
	RunnerLostAfter time.Duration
	MaxSize         int // max envelope bytes; default 1 MiB
	Workers         int // inbound handlers; default 4
	// Plain turns the bridge's shortcuts off, each on its own (bus.plain;
	// ARCHITECTURE.md, "The shortcuts").
	Plain Plain
	// Breaker tunes the circuit breakers per destination peer
	// (breaker.go; zero Threshold: off).
	Breaker BreakerConfig
	// Tracer exports the send, receive and result spans; nil: off.
	Tracer *tracing.Tracer
	// FilesLists carries a job's files list too long for one message
	// apart, as a blob of the content store (files_apart.go); nil: such a
	// result is an error saying where the files are.
	FilesLists FilesLists
}

// Plain says which of the bridge's shortcuts are off: each true field
// makes that step take the plain path the design describes. Behaviour
// stays the same; only the cost changes.
type Plain struct {
	Submit  bool // Submit pushes the message on msg_out; msgOutLoop sends it (launch.go)
	Overlap bool // a first send waits for its record's write (sendWhileWriting)
	Early   bool // no result from the runner's ending hook: remote_done builds it from Redis (early.go)
	Acks    bool // every ack at once, on its own; none rides on a message (acks.go)
	Replay  bool // every replay check asks Redis (seenBefore); the horizon is still kept
	// Caches: a result's job is looked up in Redis, not memory (sentTo),
	// senders' actor ids too (actors.go), Submit opens no end watch, and
	// receive verifies what the validator checked again.
	Caches bool
	Pair   bool // age's X25519 stanza instead of the pairwise one (envelope.SealX25519)
}

func (c *Config) defaults() {
	if c.TimeoutAck <= 0 {
		c.TimeoutAck = 3 * time.Second
	}
	if c.AckDelay == 0 {
		c.AckDelay = 100 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Minute
	}
	if c.Skew <= 0 {
		c.Skew = envelope.DefaultSkew
	}
	if c.MaxSize <= 0 {
		c.MaxSize = 1 << 20
	}
	if c.Workers <= 0 {
		c.Workers = 4
	}
}

// Bridge moves messages between the context DBs and the bus.
type Bridge struct {
	cfg     Config
	st      Store
	tr      Transport
	log     *slog.Logger
	ver     *envelope.Verifier
	stats   *Stats
	self    peer.ID
	acks    pendingAcks   // delayed acks, sent alone or riding on a message
	replay  *replays      // envelope ids seen, for the validator
	sent    *sentJobs     // writes under way, and where sent jobs went
	early   *earlyResults // results sent ahead of their records
	actors  actorIDs      // local actor ids of senders
	names   peerNames     // peer IDs' text forms
	logs    *logWaiters   // RemoteLogs requests awaiting answers
	down    downPeers     // peers down, since when (lost runners)
	marks   markedJobs    // jobs marked unknown by this run (reach.go)
	away    awayPeers     // peers watched for their return (resend.go)
	runners registry      // runner records per context, for jobs the agent routes

	apart    listsApart // files lists being fetched apart (files_apart.go)
	inApart  listsApart // inputs lists being fetched apart (files_apart_inputs.go)
	breakers *breakers  // circuit breakers per destination peer (breaker.go)
	wake     bridgeWake // the loops' wake-ups (wake.go)

	life lifecycle.Group // the loops and the work Shutdown waits for
	ctx  context.Context // life's context; set by Start under mu
	sem  chan struct{}   // bounds concurrent sends

	mu       sync.Mutex
	loops    map[uint64]context.CancelFunc // per-context loops; guarded by mu
	inflight map[string]bool               // outbox keys being sent; guarded by mu
}

// New builds a bridge; Start runs it.
func New(cfg Config, st Store, tr Transport, log *slog.Logger) (*Bridge, error) {
	if cfg.Self == nil || !st.complete() || tr == nil || cfg.Contexts == nil {
		return nil, errors.New("bridge.New: Self, store, transport and Contexts are required")
	}
	cfg.defaults()
	b := &Bridge{cfg: cfg, st: st, tr: tr, log: log, stats: newStats(), self: cfg.Self.PeerID(),
		sem: make(chan struct{}, 64), loops: map[uint64]context.CancelFunc{}, inflight: map[string]bool{}}
	b.ver = &envelope.Verifier{Self: cfg.Self, Skew: cfg.Skew, MaxSize: cfg.MaxSize}
	b.replay = newReplays(cfg.Skew, b.replayTTL())
	b.sent, b.early, b.names, b.logs = newSentJobs(), newEarlyResults(), newPeerNames(), newLogWaiters()
	b.initBreakers()
	return b, nil
}

// Stats returns the counters.
func (b *Bridge) Stats() *Stats { return b.stats }

// Start installs the inbox validator and starts the loops.
func (b *Bridge) Start(ctx context.Context) error {
	b.mu.Lock()
	lctx, err := b.life.Start(context.Background())
	if err == nil {
		b.ctx = lctx // under mu: enterLocked's callers read it after
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("bridge.Start: %w", err)
	}
	b.tr.SetInboxValidator(b.validate)
	b.watchPeers(ctx)
	for i := 0; i < b.cfg.Workers; i++ {
		b.spawn(b.receiveLoop)
	}
	b.spawn(b.outboxLoop)
	b.spawn(b.contextsLoop)
	b.spawn(b.externalLoop) // jobs ended by external workers go home (external.go)
	b.spawn(b.adoptLoop)    // contexts written only in their own DB (adopt.go)
	if err := b.replay.start(ctx, b.st.Bus); err != nil {
		b.log.Warn("bridge: replay horizon: every replay check goes to Redis", "err", err)
	}
	b.spawn(func() { b.replay.run(b.ctx, b.st.Bus, func(msg string, err error) { b.log.Warn(msg, "err", err) }) })
	return nil
}

// Shutdown stops every loop; safe to call twice. Pending acks go out
// first (for up to a second); messages in the outbox stay there and are
// sent by the next start.
func (b *Bridge) Shutdown(ctx context.Context) error {
	if !b.life.Running() { // not started, or stopped already
		b.life.Stop()
		return nil
	}
	b.flushAcks(ctx)
	b.life.Stop() // no work starts from now on; b.ctx ends
	b.acks.stop()
	if err := b.life.Wait(ctx); err != nil {
		return fmt.Errorf("bridge.Shutdown: %w", err)
	}
	return nil
}

// flushAcks sends the pending acks now, one message per peer, waiting up
// to a second (or ctx) for them.
func (b *Bridge) flushAcks(ctx context.Context) {
	sends := b.acks.flush()
	if len(sends) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	done := make(chan struct{}, len(sends))
	for _, send := range sends {
		if !b.spawn(func() { defer func() { done <- struct{}{} }(); send() }) {
			done <- struct{}{} // stopping: it does not go out
		}
	}
	for range sends {
		select {
		case <-done:
		case <-ctx.Done(): // the rest end with b.ctx, and Shutdown waits for them
			return
		}
	}
}

// goIfRunning starts f as one of the bridge's goroutines if the bridge
// has started and not stopped, and reports whether it did (for calls from
// other components).
func (b *Bridge) goIfRunning(f func()) bool {
	b.mu.Lock()
	ok := b.enterLocked()
	b.mu.Unlock()
	if ok {
		go func() { defer b.leave(); f() }()
	}
	return ok
}

// enterLocked counts one more piece of work among what Shutdown waits
// for, if the bridge has started and not stopped; mu is held (so that
// b.ctx, set under mu, is seen by the work). The caller calls leave when
// the work is over.
func (b *Bridge) enterLocked() bool { return b.life.Enter() }

// leave ends a piece of work counted by enterLocked.
func (b *Bridge) leave() { b.life.Leave() }

// spawn runs f as one of the bridge's goroutines; it is called by the
// bridge's own code once started, and refuses (false) once Shutdown
// stopped taking work.
func (b *Bridge) spawn(f func()) bool {
	return b.life.Go(func(context.Context) { f() })
}

// running runs f as one of the bridge's goroutines' work unless the bridge
// has stopped (for callbacks from timers).
func (b *Bridge) running(f func()) {
	b.mu.Lock()
	ok := b.enterLocked()
	b.mu.Unlock()
	if ok {
		defer b.leave()
		f()
	}
}

// contextsLoop starts per-context loops for contexts as they appear.
func (b *Bridge) contextsLoop() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		b.refreshContexts()
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Kick makes the bridge look for new contexts now.
func (b *Bridge) Kick() { b.refreshContexts() }

func (b *Bridge) refreshContexts() {
	ids, err := b.cfg.Contexts(b.ctx)
	if err != nil {
		if b.ctx.Err() == nil {
			b.log.Warn("bridge: list contexts", "err", err)
		}
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.life.Running() {
		return
	}
	for _, id := range ids {
		if _, ok := b.loops[id]; ok {
			continue
		}
		ctx, cancel := context.WithCancel(b.ctx)
		b.loops[id] = cancel
		id := id
		b.spawn(func() { b.msgOutLoop(ctx, id) })
		b.spawn(func() { b.remoteDoneLoop(ctx, id) })
	}
}

func (b *Bridge) contextIDs() []uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Collect(maps.Keys(b.loops))
}

// Flush waits, up to ctx, until no message in the local outboxes can
// still be acknowledged before shutdown: each has been, or waits for a
// peer this agent is not connected to (a peer that went away cannot ack
// it; the message stays in the outbox and goes out again at the next
// start). It sends the pending acks first.
func (b *Bridge) Flush(ctx context.Context) {
	b.flushAcks(ctx)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		total, live := b.unacked(ctx)
		if live == 0 {
			if total > 0 {
				b.log.Info("bridge: messages for peers not connected stay in the outbox", "count", total)
			}
			return
		}
		select {
		case <-ctx.Done():
			b.log.Warn("bridge: drain grace over with messages still unacknowledged; they stay in the outbox", "count", total)
			return
		case <-t.C:
		}
	}
}

// flushScan bounds the outbox entries Flush looks at per context; beyond
// it, entries count as awaiting a connected peer.
const flushScan = 256

// unacked counts the messages in the local outboxes, and those of them an
// ack can still come for now: addressed to a peer this agent is connected
// to (a store error counts them all as such).
func (b *Bridge) unacked(ctx context.Context) (total, live int64) {
	for _, id := range b.contextIDs() {
		dsts, n, err := b.st.Bus.OutboxDestinations(ctx, id, flushScan)
		if err != nil {
			return total + 1, live + 1
		}
		total, live = total+n, live+n-int64(len(dsts))
		for _, dst := range dsts {
			if p, err := b.names.decode(dst); err == nil && b.tr.Connected(p) {
				live++
			}
		}
	}
	return total, live
}
