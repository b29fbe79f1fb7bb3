package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/overlay"
)

// msgOutLoop takes message keys from a context's msg_out and sends each
// at once (launchTaken); the outbox then retransmits it until acknowledged.
func (b *Bridge) msgOutLoop(ctx context.Context, ctxID uint64) {
	if _, err := b.st.Bus.Requeue(ctx, ctxID, store.MsgOutProcessingKey, store.MsgOutKey); err != nil {
		b.log.Warn("bridge: recover msg_out", "context", ctxID, "err", err)
	}
	take := b.taker(ctxID, store.MsgOutKey, store.MsgOutProcessingKey)
	for ctx.Err() == nil {
		key, err := take(ctx)
		if err != nil {
			if ctx.Err() == nil {
				b.log.Warn("bridge: msg_out", "context", ctxID, "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		if key != "" {
			b.takeOne(ctx, ctxID, key)
		}
	}
}

// takeOne sends one msg_out entry. A message that cannot be sent ends
// with status error and the reason; when the store fails, the entry goes
// back on msg_out for another try.
func (b *Bridge) takeOne(ctx context.Context, ctxID uint64, key string) {
	err := b.launchTaken(ctx, ctxID, key)
	switch {
	case err == nil:
	case b.quarantined(ctx, ctxID, key, err): // poison: in dead_letter (quarantine.go)
	case isBad(err):
		b.log.Warn("bridge: bad message on msg_out", "context", ctxID, "key", key, "err", err)
		_ = b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgError, model.Hash{"error": err.Error()})
		_ = b.st.Bus.Done(ctx, ctxID, store.MsgOutProcessingKey, key)
	case ctx.Err() == nil:
		b.log.Warn("bridge: sending from msg_out", "context", ctxID, "key", key, "err", err)
		sleep(ctx, time.Second)
		_, _ = b.st.Bus.Requeue(ctx, ctxID, store.MsgOutProcessingKey, store.MsgOutKey)
	}
}

// prepare checks a message from msg_out and, for a job, returns its
// origin job (found or created; the result will be written onto it),
// adding what must be written to o; existed says the job was stored
// already (a flow's, or one a client wrote).
func (b *Bridge) prepare(ctx context.Context, ctxID uint64, key string, m *model.Message,
	o *store.Outgoing) (j *model.RunnerJob, existed bool, err error) {
	switch m.MessageType {
	case model.MsgTypeJob:
		return b.prepareJob(ctx, ctxID, key, m, o)
	case model.MsgTypeChat, model.MsgTypeMail: // without dst: to a registered runner (route_chat.go)
		return nil, false, nil
	case model.MsgTypeStop, model.MsgTypeEvent:
		if m.Dst == "" {
			return nil, false, bad("dst (recipient peer ID) is required for stop messages")
		}
		return nil, false, nil
	case "":
		return nil, false, bad("message_type is empty (want job, chat, mail or stop)")
	}
	return nil, false, bad("message_type %q cannot be sent from msg_out", m.MessageType)
}

func (b *Bridge) prepareJob(ctx context.Context, ctxID uint64, key string, m *model.Message,
	o *store.Outgoing) (*model.RunnerJob, bool, error) {
	if len(m.Job) != 1 {
		return nil, false, bad("a job message carries exactly one job, this one %d", len(m.Job))
	}
	j := m.Job[0]
	if j.Script == "" || j.ScriptType == "" {
		return nil, false, bad("the job needs script and script_type")
	}
	if j.CallerID == 0 {
		j.CallerID = m.CallerID
	}
	j.ContextID = ctxID
	j, existed, err := b.originJob(ctx, ctxID, key, j, o)
	if err != nil {
		return nil, false, err
	}
	traceOnSend(j, m, o.JobFields, o.Fields)
	m.Job = []*model.RunnerJob{j}
	o.Fields["job"] = m.ToHash()["job"]
	return j, existed, nil
}

// originJob returns the job a message sends, as stored here: the existing
// job:<caller>:<id> (a flow's, or one a client wrote; existed), else a new
// one (saved by the same write as the message; the result will be written
// onto it). Either way it points back at the message.
func (b *Bridge) originJob(ctx context.Context, ctxID uint64, msgKey string, j *model.RunnerJob,
	o *store.Outgoing) (*model.RunnerJob, bool, error) {
	if j.ID != 0 {
		jobKey := store.JobKey(j.CallerID, j.ID)
		existing, err := b.st.Jobs.LoadJobKey(ctx, ctxID, jobKey)
		if err == nil {
			o.Job, o.JobFields = jobKey, model.Hash{model.ExtraMessageKey: msgKey}
			return existing, true, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, false, err
		}
	} else {
		ids, err := b.st.Jobs.NextIDs(ctx, ctxID, "job")
		if err != nil {
			return nil, false, err
		}
		j.ID = ids[0]
	}
	j.Status, j.Attempt = model.JobDispatched, 1
	j.SetMessageKey(msgKey)
	now := time.Now().Unix()
	if j.CreatedAt == 0 {
		j.CreatedAt = now
	}
	j.UpdatedAt = now
	o.Job, o.JobFields = store.JobKey(j.CallerID, j.ID), j.ToHash()
	return j, false, nil
}

// overdueEvery is how often outboxLoop looks for overdue results, at
// most: result deadlines are minutes away.
const overdueEvery = 2 * time.Second

// outboxLoop resends what is due in every context's outbox and gives up
// on overdue results. Each wake checks peers' returns and the due times in
// memory; a context's outbox (or awaiting_result) is read just after it is
// written, when its earliest entry falls due (outbox_due.go) and every
// wakeSafety. It wakes every outboxTick while a peer is watched or an
// entry is due soon, else once a second.
// Without notifications every outbox is read on each tick, as before.
func (b *Bridge) outboxLoop() {
	t := time.NewTimer(outboxTick)
	defer t.Stop()
	due, w := newOutboxDue(), b.watch()
	if w != nil {
		w.OnWrite(store.OutboxKey, due.written(store.OutboxKey))
		w.OnWrite(store.AwaitingKey, due.written(store.AwaitingKey))
	}
	lastSweep, lastAll := time.Now(), time.Now()
	next := time.Now().Add(outboxTick) // when t fires
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-due.kick: // a write: wake sooner if its grace ends before next
			if at := time.Now().Add(due.nap(time.Now(), b.away.watching())); at.Before(next) {
				next = at
				t.Reset(time.Until(at))
			}
			continue
		case <-t.C:
		}
		b.outboxRound(due, w != nil, &lastSweep, &lastAll)
		nap := outboxTick
		if w != nil {
			nap = due.nap(time.Now(), b.away.watching())
		}
		next = time.Now().Add(nap)
		t.Reset(nap)
	}
}

// outboxRound is one wake of outboxLoop: peers' returns, the contexts
// due, and every overdueEvery the lost-runner sweep.
func (b *Bridge) outboxRound(due *outboxDue, woken bool, lastSweep, lastAll *time.Time) {
	b.watchReturns()
	now := time.Now()
	if now.Sub(*lastAll) >= wakeSafety {
		due.lookAll()
		*lastAll = now
	}
	send, await := due.take(b.contextIDs(), now)
	for _, id := range send {
		b.outboxPass(id, due, now, woken)
	}
	for _, id := range await {
		b.overduePass(id, due, now, woken)
	}
	if now.Sub(*lastSweep) >= overdueEvery {
		*lastSweep = now
		b.sweepRunners()
	}
}

// outboxPass sends what is due in context id's outbox and notes when its
// earliest entry falls due (woken: else at the next tick).
func (b *Bridge) outboxPass(id uint64, due *outboxDue, now time.Time, woken bool) {
	const batch = 256
	keys, err := b.st.Bus.OutboxDue(b.ctx, id, now, batch)
	for _, k := range keys {
		b.trySend(id, k)
	}
	next := now
	if err == nil && woken && len(keys) < batch {
		next = b.earliest(id, store.OutboxKey, now)
	}
	due.later(due.send, id, next)
}

// overduePass gives up on context id's overdue results and notes when to
// look again: at its earliest deadline (woken), overdueEvery on at least.
func (b *Bridge) overduePass(id uint64, due *outboxDue, now time.Time, woken bool) {
	b.overdue(id)
	next := now.Add(overdueEvery)
	if woken {
		if at := b.earliest(id, store.AwaitingKey, now); at.After(next) {
			next = at
		}
	}
	due.later(due.await, id, next)
}

// earliest is the time of the earliest entry of context id's sorted set
// key: now when it cannot be read, a wakeSafety away when it is empty.
func (b *Bridge) earliest(id uint64, key string, now time.Time) time.Time {
	at, ok, err := b.st.Bus.(keyWatcher).Earliest(b.ctx, id, key)
	switch {
	case err != nil:
		return now
	case !ok:
		return now.Add(wakeSafety)
	}
	return at
}

// trySend sends one outbox entry in the background unless already under way.
func (b *Bridge) trySend(ctxID uint64, key string) {
	b.inBackground(ctxID, key, func() error { return b.sendOne(b.ctx, ctxID, key) })
}

// inBackground runs send for outbox entry key in its own goroutine (a
// publish can wait seconds for a route), unless a send of that entry is
// already under way.
func (b *Bridge) inBackground(ctxID uint64, key string, send func() error) {
	release, ok := b.claimSend(ctxID, key)
	if !ok {
		return
	}
	go func() {
		defer release()
		b.sendBounded(ctxID, key, send)
	}()
}

// inPlace is inBackground on the caller's goroutine, for a send that
// should not wait for a new goroutine to get a CPU (see sendWhileWriting).
func (b *Bridge) inPlace(ctxID uint64, key string, send func() error) {
	release, ok := b.claimSend(ctxID, key)
	if !ok {
		return
	}
	defer release()
	b.sendBounded(ctxID, key, send)
}

// claimSend marks a send of outbox entry key as under way and counts it
// among the bridge's work (enterLocked); ok is false when one is under
// way already or the bridge is not running. release undoes both.
func (b *Bridge) claimSend(ctxID uint64, key string) (release func(), ok bool) {
	ik := strconv.FormatUint(ctxID, 10) + "/" + key
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inflight[ik] || !b.enterLocked() {
		return nil, false
	}
	b.inflight[ik] = true
	return func() {
		b.mu.Lock()
		delete(b.inflight, ik)
		b.mu.Unlock()
		b.leave()
	}, true
}

// sendBounded runs send once one of the 64 send slots is free.
func (b *Bridge) sendBounded(ctxID uint64, key string, send func() error) {
	select {
	case b.sem <- struct{}{}:
	case <-b.ctx.Done():
		return
	}
	defer func() { <-b.sem }()
	if err := send(); err != nil && b.ctx.Err() == nil {
		b.log.Debug("bridge: send", "context", ctxID, "key", key, "err", err)
	}
}

// sendOne sends (or resends) message key and schedules the next try.
func (b *Bridge) sendOne(ctx context.Context, ctxID uint64, key string) error {
	m, err := b.st.Bus.LoadMessageKey(ctx, ctxID, key)
	if err != nil {
		_, _ = b.st.Bus.OutboxRemove(ctx, ctxID, key)
		return err
	}
	sends, _ := strconv.Atoi(m.Extra[model.ExtraSends])
	if b.expired(m) {
		return b.giveUp(ctx, ctxID, key, m, sends)
	}
	if why := b.cancelledFlowJob(ctx, ctxID, m); why != "" {
		return b.withdraw(ctx, ctxID, key, m, why)
	}
	job, err := b.sentJob(ctx, ctxID, m)
	if err != nil {
		return err
	}
	if why := cmp.Or(staleAttempt(m, job), endedBeforeDelivery(job)); why != "" {
		return b.withdraw(ctx, ctxID, key, m, why)
	}
	dst, err := b.record(ctx, ctxID, m, job, store.Outgoing{Message: key}, sends)
	if errors.Is(err, ErrNoRunner) { // its runners were revoked meanwhile
		return b.unroutable(ctx, ctxID, key, m, err)
	}
	if err != nil || dst == "" {
		return err
	}
	if sends > 0 {
		b.stats.retransmit()
	}
	if dst != b.self && !b.tr.Connected(dst) {
		b.away.note(dst) // resent at once when it connects (resend.go)
	}
	pre, err := b.outgoing(ctx, ctxID, key, m, job)
	if err != nil {
		return err
	}
	b.inputsOut(ctx, pre) // a long inputs list goes apart (files_apart_inputs.go)
	err = b.deliver(ctx, dst, pre.typ, pre.target, pre.attempt, pre.p)
	if errors.Is(err, overlay.ErrTooLarge) { // as large at every resend
		return b.tooLarge(ctx, ctxID, key, m, err)
	}
	return err
}

// tooLarge ends message key, which no resend can fit in one overlay
// message, and the job it sends with the reason (a job's inputs list
// travels in its message: thousands of input files pass the limit).
func (b *Bridge) tooLarge(ctx context.Context, ctxID uint64, key string, m *model.Message, err error) error {
	if m.MessageType == model.MsgTypeJob && len(m.Job) == 1 {
		return b.unroutable(ctx, ctxID, key, m, fmt.Errorf("the job's message is too large to send "+
			"(its inputs list travels in it: give it fewer input files, a tar): %w", err))
	}
	_, _ = b.st.Bus.OutboxRemove(ctx, ctxID, key)
	b.log.Warn("bridge: message too large to send", "context", ctxID, "key", key, "err", err)
	if m.Status.CanMoveTo(model.MsgError) {
		_ = b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgError, model.Hash{"error": err.Error()})
	}
	return nil
}

// backoff is how long after its sends-th send (counted from where its
// backoff started again: model.ExtraBackoffFrom) m is sent again.
func (b *Bridge) backoff(m *model.Message, sends int) time.Duration {
	from, _ := strconv.Atoi(m.Extra[model.ExtraBackoffFrom])
	sends -= min(max(from, 0), sends)
	d := b.cfg.TimeoutAck
	if m.TimeoutAck > 0 {
		d = time.Duration(m.TimeoutAck) * time.Second
	}
	for i := 0; i < sends && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}

// deliver seals and publishes a payload, or hands it to ourselves.
func (b *Bridge) deliver(ctx context.Context, dst peer.ID, typ envelope.Type, target uint64, attempt int64, p *payload) error {
	b.stats.add(b.stats.sent, typ.String())
	if dst == b.self {
		b.spawn(func() { b.handle(b.ctx, b.self, typ, target, p) })
		return nil
	}
	var acks []*pendingAck
	if !b.cfg.Plain.Acks { // plain: nothing is pending to ride
		acks = b.acks.piggyback(b.names.name(dst))
	}
	if len(acks) > 0 {
		q := *p // p may be sealed again later (a retry), without these
		q.Acks, p = refs(acks), &q
	}
	err := b.seal(ctx, dst, typ, target, attempt, p)
	if err != nil && len(acks) > 0 { // they did not go out: on their own, then
		b.spawn(func() {
			for _, a := range acks {
				a.send()
			}
		})
	}
	return err
}

// seal seals p to dst (with age's X25519 stanza under Plain.Pair) and
// publishes it.
func (b *Bridge) seal(ctx context.Context, dst peer.ID, typ envelope.Type, target uint64, attempt int64, p *payload) error {
	sealFn := envelope.Seal
	if b.cfg.Plain.Pair {
		sealFn = envelope.SealX25519
	}
	env, err := sealFn(b.cfg.Self, dst, typ, target, uint32(max(attempt, 0)), p.encode())
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return b.tr.Send(sctx, dst, env.Marshal())
}

// cancelledFlowJob says why a job message must not be (re)sent: it
// carries a flow job whose node has ended meanwhile (the flow was
// cancelled, timed out or failed before the runner acknowledged it).
func (b *Bridge) cancelledFlowJob(ctx context.Context, ctxID uint64, m *model.Message) string {
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 || m.Job[0].FlowID == 0 || m.Job[0].Name == "" {
		return ""
	}
	j := m.Job[0]
	st, err := b.st.Flows.FlowNodeState(ctx, ctxID, j.FlowID, j.Name)
	if err != nil || !st.Terminal() {
		return ""
	}
	return fmt.Sprintf("withdrawn before delivery: job %q of flow %d is %s", j.Name, j.FlowID, st)
}

// sentJob loads the job a job message carries, as it is now (nil for
// other messages); one read serves the stale check and the payload.
func (b *Bridge) sentJob(ctx context.Context, ctxID uint64, m *model.Message) (*model.RunnerJob, error) {
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return nil, nil
	}
	return b.st.Jobs.LoadJobKey(ctx, ctxID, store.JobKey(m.Job[0].CallerID, m.Job[0].ID))
}

// staleAttempt says why a job message is outdated: its job has moved on to
// a newer attempt (re-dispatched elsewhere), so resending the old one
// would run the job twice and point the job at the old runner.
func staleAttempt(m *model.Message, job *model.RunnerJob) string {
	if job == nil || m.Job[0].Attempt == 0 || job.Attempt <= m.Job[0].Attempt {
		return ""
	}
	return fmt.Sprintf("withdrawn: the job moved on to attempt %d", job.Attempt)
}

// withdraw ends an undelivered job message for good, and its job attempt
// with it (so a late copy of the job's result is refused).
func (b *Bridge) withdraw(ctx context.Context, ctxID uint64, key string, m *model.Message, why string) error {
	_, _ = b.st.Bus.OutboxRemove(ctx, ctxID, key)
	b.log.Info("bridge: job message withdrawn", "context", ctxID, "key", key, "reason", why)
	if m.Status.CanMoveTo(model.MsgError) {
		_ = b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgError, model.Hash{"error": why})
	}
	_, err := b.failSent(ctx, ctxID, m.Job[0], m.Job[0].Attempt, why)
	return err
}

// StopUndelivered ends the job that message m (of context ctxID) sends
// with status error and reason if m's recipient has not acknowledged it
// yet (a stop before delivery: the agent may be away). The outbox then
// withdraws the message at its next try instead of sending it
// (endedBeforeDelivery), so the job cannot start when the agent returns.
// It reports false when the message was acknowledged or is no job
// message; the stop must travel then. Either way the caller still sends
// the stop: it reaches a job that was delivered but whose ack has not
// come back, or a send that was under way.
func (b *Bridge) StopUndelivered(ctx context.Context, ctxID uint64, m *model.Message, reason string) (bool, error) {
	if m.Status != model.MsgDispatched || m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return false, nil
	}
	return b.failSent(ctx, ctxID, m.Job[0], m.Job[0].Attempt, reason)
}

// unroutable ends a job message in the outbox that can go nowhere (see
// ErrNoRunner), and its job with it.
func (b *Bridge) unroutable(ctx context.Context, ctxID uint64, key string, m *model.Message, why error) error {
	_, _ = b.st.Bus.OutboxRemove(ctx, ctxID, key)
	b.log.Warn("bridge: job message refused", "context", ctxID, "key", key, "reason", why)
	if m.Status.CanMoveTo(model.MsgError) {
		_ = b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgError, model.Hash{"error": why.Error()})
	}
	_, err := b.failSent(ctx, ctxID, m.Job[0], m.Job[0].Attempt, why.Error())
	return err
}

// endedBeforeDelivery says why a job message must not be (re)sent: its job
// has ended meanwhile (stopped before its recipient acknowledged it).
func endedBeforeDelivery(job *model.RunnerJob) string {
	if job == nil || !job.Status.Terminal() {
		return ""
	}
	return fmt.Sprintf("withdrawn: the job ended (%s) before delivery", job.Status)
}

// giveUp ends a message that was never acknowledged in time.
func (b *Bridge) giveUp(ctx context.Context, ctxID uint64, key string, m *model.Message, sends int) error {
	_, _ = b.st.Bus.OutboxRemove(ctx, ctxID, key)
	reason := fmt.Sprintf("not acknowledged by %s after %d sends within the timeout", orNone(m.Dst), sends)
	if m.Dst == "" && m.Error != "" {
		reason = "gave up: " + m.Error
	}
	b.log.Warn("bridge: giving up on message", "context", ctxID, "key", key, "reason", reason)
	b.fault(m, reason) // a job message its peer never took: its circuit breaker counts it
	_ = b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgError, model.Hash{"error": reason})
	switch {
	case m.MessageType != model.MsgTypeJob || len(m.Job) != 1:
	case m.Dst != "" && sends > 0: // it may have arrived, its acks lost: keep a late result (late.go)
		b.giveUpSent(ctx, ctxID, m, reason)
	default:
		_, _ = b.failSent(ctx, ctxID, m.Job[0], 0, reason)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "any runner"
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
