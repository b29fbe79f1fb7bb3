package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// saveMessage writes m into its context DB (allocating its id when 0).
func (s *core) saveMessage(ctx context.Context, m *model.Message) error {
	db, err := s.db(m.ContextID)
	if err != nil {
		return fmt.Errorf("store.SaveMessage: %w", err)
	}
	if m.ID == 0 {
		if m.ID, err = NextID(ctx, db, "message"); err != nil {
			return fmt.Errorf("store.SaveMessage: %w", err)
		}
	}
	stamp(&m.CreatedAt, &m.UpdatedAt)
	return wrap("store.SaveMessage", hset(ctx, db, MessageKey(m.CallerID, m.ID), m.ToHash()))
}

// PushMessage saves m (status dispatched) in context ctxID's DB and pushes
// its key on list (MsgOutKey to send, MsgInKey when received), atomically.
// The DB and m.ContextID differ for a message being sent: it lives in the
// origin context and its context_id names the target context.
func (s *Bus) PushMessage(ctx context.Context, ctxID uint64, m *model.Message, list string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.PushMessage: %w", err)
	}
	if m.ID == 0 {
		if m.ID, err = NextID(ctx, db, "message"); err != nil {
			return fmt.Errorf("store.PushMessage: %w", err)
		}
	}
	if m.Status == "" {
		m.Status = model.MsgDispatched
	}
	stamp(&m.CreatedAt, &m.UpdatedAt)
	key := MessageKey(m.CallerID, m.ID)
	return scriptErr("store.PushMessage", pushMessage.Run(ctx, db, []string{key, list}, pairs(m.ToHash())...).Err())
}

// pushMessage: see PushMessage.
// KEYS[1] message key, KEYS[2] the list. ARGV field, value pairs.
// Returns the list's length.
var pushMessage = newScript("pushMessage", `
redis.call('HSET', KEYS[1], unpack(ARGV))
return redis.call('LPUSH', KEYS[2], KEYS[1])
`)

// LoadMessage reads message:<caller>:<id> of context ctxID.
func (s *Bus) LoadMessage(ctx context.Context, ctxID, caller, id uint64) (*model.Message, error) {
	return s.LoadMessageKey(ctx, ctxID, MessageKey(caller, id))
}

// LoadMessageKey reads a message by key.
func (s *Bus) LoadMessageKey(ctx context.Context, ctxID uint64, key string) (*model.Message, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadMessage: %w", err)
	}
	h, err := load(ctx, db, key)
	if err != nil {
		return nil, fmt.Errorf("store.LoadMessage: %w", err)
	}
	m, err := decodeMessage(ctxID)(key, h)
	if err != nil {
		return nil, fmt.Errorf("store.LoadMessage: %w", err)
	}
	return m, nil
}

// decodeMessage decodes a message hash of context ctxID, taking the ids that
// a hand-written hash leaves out from its key and DB.
func decodeMessage(ctxID uint64) func(string, model.Hash) (*model.Message, error) {
	return func(key string, h model.Hash) (*model.Message, error) {
		m, err := model.MessageFromHash(key, h)
		if err != nil {
			return nil, err
		}
		if m.ContextID == 0 {
			m.ContextID = ctxID
		}
		if caller, id, perr := ParseMessageKey(key); perr == nil {
			if m.CallerID == 0 {
				m.CallerID = caller
			}
			if m.ID == 0 {
				m.ID = id
			}
		}
		return m, nil
	}
}

// ListMessages returns the messages of a context.
func (s *Bus) ListMessages(ctx context.Context, ctxID uint64) ([]*model.Message, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListMessages: %w", err)
	}
	keys, err := scan(ctx, db, "message:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListMessages: %w", err)
	}
	return loadAll(ctx, db, keys, decodeMessage(ctxID))
}

// deleteMessage removes a message hash.
func (s *core) deleteMessage(ctx context.Context, ctxID, caller, id uint64) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.DeleteMessage: %w", err)
	}
	return wrap("store.DeleteMessage", del(ctx, db, MessageKey(caller, id)))
}

// SetMessageStatus moves a message to status (validated atomically, so an
// ack and a result racing cannot undo each other), writing fields.
func (s *Bus) SetMessageStatus(ctx context.Context, ctxID uint64, key string,
	status model.MessageStatus, fields model.Hash) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SetMessageStatus: %w", err)
	}
	args := append([]any{string(status), now()}, pairs(without(fields, "status"))...)
	return scriptErr("store.SetMessageStatus "+key, setMessageStatus.Run(ctx, db, []string{key}, args...).Err())
}

// setMessageStatus: see SetMessageStatus.
// KEYS[1] message key. ARGV[1] new status, ARGV[2] now (unix s), ARGV[3..]
// field, value pairs. Returns 1, or an error "notfound: …" or
// "transition: …" (nothing written).
var setMessageStatus = newScript("setMessageStatus", luaMessageMoves, `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('notfound: ' .. KEYS[1]) end
local st = redis.call('HGET', KEYS[1], 'status') or ''
if not messageMoves(st, ARGV[1]) then
  return redis.error_reply('transition: ' .. KEYS[1] .. ' cannot go from "' .. st .. '" to "' .. ARGV[1] .. '"')
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2], unpack(ARGV, 3))
return 1
`)
