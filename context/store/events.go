package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Events (model/event.go) are messages: a local one is stored and put on
// EventsKey, a received one (or a received chat or mail message) is
// stored on msg_in and put on EventsKey, each in one script, so an event
// the agent has accepted is never lost before its triggers and waits saw
// it. The scheduler's event loop takes EventsKey entries to a processing
// list and removes them once handled (a crash in between hands them back).

// EventTTL is how long event dedupe records (event_runs:*, event_seen:*)
// live.
const EventTTL = InboundTTL

// PublishEvent stores event m (status processed) in context ctxID and puts
// it on EventsKey, atomically.
func (s *Events) PublishEvent(ctx context.Context, ctxID uint64, m *model.Message) error {
	m.Status = model.MsgProcessed
	return wrap("store.PublishEvent", s.bus.PushMessage(ctx, ctxID, m, EventsKey))
}

// QueueLocalEvent hands an event a client pushed on msg_out without a
// recipient (now on processing, the bridge's msg_out processing list) to
// this agent's own event loop: status processed, moved to EventsKey.
func (s *Events) QueueLocalEvent(ctx context.Context, ctxID uint64, processing, key string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.QueueLocalEvent: %w", err)
	}
	err = queueLocalEvent.Run(ctx, db, []string{key, processing, EventsKey}, string(model.MsgProcessed), now()).Err()
	return scriptErr("store.QueueLocalEvent", err)
}

// queueLocalEvent: see QueueLocalEvent. KEYS[1] message key, KEYS[2] the
// processing list, KEYS[3] events. ARGV[1] processed, ARGV[2] now.
var queueLocalEvent = newScript("queueLocalEvent", `
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2])
redis.call('LREM', KEYS[2], 1, KEYS[1])
redis.call('LPUSH', KEYS[3], KEYS[1])
return 1
`)

// ReceiveEvent is ReceiveMessage that also puts the message on EventsKey
// (in the same script): a received event, or a chat or mail message when
// the context has triggers (only a trigger can use those; without one
// they would pile up unread). A resend of the same (sender, ref) stores
// nothing and reports created false.
func (s *Events) ReceiveEvent(ctx context.Context, ctxID uint64, sender, ref string, m *model.Message) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.ReceiveEvent: %w", err)
	}
	if m.ID == 0 {
		ids, err := s.nextIDs(ctx, ctxID, "message")
		if err != nil {
			return false, fmt.Errorf("store.ReceiveEvent: %w", err)
		}
		m.ID = ids[0]
	}
	stamp(&m.CreatedAt, &m.UpdatedAt)
	always := "0"
	if m.MessageType == model.MsgTypeEvent {
		always = "1"
	}
	args := append([]any{int64(InboundTTL / time.Second), always}, pairs(m.ToHash())...)
	keys := []string{InboundKey(sender, ref), MessageKey(m.CallerID, m.ID), MsgInKey, EventsKey, TriggersKey}
	n, err := receiveEvent.Run(ctx, db, keys, args...).Int()
	if err != nil {
		return false, scriptErr("store.ReceiveEvent", err)
	}
	return n == 1, nil
}

// receiveEvent: see ReceiveEvent. KEYS[1] inbound:<sender>:<ref>, KEYS[2]
// message key, KEYS[3] msg_in, KEYS[4] events, KEYS[5] triggers. ARGV[1]
// TTL seconds of the mapping, ARGV[2] "1": onto events always, "0": only
// when there are triggers, ARGV[3..] message pairs. Returns 1 when
// stored, 0 for a resend.
var receiveEvent = newScript("receiveEvent", `
if redis.call('GET', KEYS[1]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('LPUSH', KEYS[3], KEYS[2])
if ARGV[2] == '1' or redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('LPUSH', KEYS[4], KEYS[2])
end
redis.call('SET', KEYS[1], KEYS[2], 'EX', tonumber(ARGV[1]))
return 1
`)

// NextEntry moves the oldest entry of list to processing, waiting up to
// block for one ("" when none came).
func (s *Events) NextEntry(ctx context.Context, ctxID uint64, list, processing string, block time.Duration) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.NextEntry: %w", err)
	}
	secs := strconv.FormatFloat(block.Seconds(), 'f', 3, 64)
	key, err := db.Do(ctx, "BLMOVE", list, processing, "RIGHT", "LEFT", secs).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return key, wrap("store.NextEntry", err)
}

// ListEvents returns the newest events of a context (at most limit),
// newest first, skipping messages that are no events.
func (s *Events) ListEvents(ctx context.Context, ctxID uint64, limit int) ([]*model.Event, error) {
	ms, err := s.bus.ListMessages(ctx, ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListEvents: %w", err)
	}
	var out []*model.Event
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if m.MessageType != model.MsgTypeEvent {
			continue
		}
		if e, err := model.EventOf(MessageKey(m.CallerID, m.ID), m); err == nil {
			out = append(out, e)
		}
	}
	sortEvents(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// sortEvents orders events newest first (by message id).
func sortEvents(es []*model.Event) {
	id := func(e *model.Event) uint64 {
		_, n, _ := ParseMessageKey(e.Key)
		return n
	}
	slices.SortFunc(es, func(a, b *model.Event) int { return cmp.Compare(id(b), id(a)) })
}
