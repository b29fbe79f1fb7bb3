package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// InviteKey is the hash of one invite (node/invite: a one-time join code).
func InviteKey(id string) string { return "invite:" + id }

// InviteSetKey is the set of every invite id, for invite.list.
const InviteSetKey = "invites"

// PeerNameKey maps a name this agent gave a peer (hyphae join records the
// agent it joined under its host name) to that peer's ID.
func PeerNameKey(name string) string { return "peer_name:" + name }

// Invite is one invite record. Key is the secret-derived key the join's
// MAC is checked with; the code's secret itself is not stored.
type Invite struct {
	ID        string
	Context   uint64
	Role      string
	Runner    bool
	Key       string // hex
	CreatedAt int64  // unix seconds
	ExpiresAt int64
	State     string // open, used, revoked
	UsedBy    string // the peer ID that joined
	UsedAt    int64
}

func (v *Invite) hash() []any {
	return []any{"id", v.ID, "context", u(v.Context), "role", v.Role, "runner", strconv.FormatBool(v.Runner),
		"key", v.Key, "created_at", i64(v.CreatedAt), "expires_at", i64(v.ExpiresAt), "state", v.State,
		"used_by", v.UsedBy, "used_at", i64(v.UsedAt)}
}

func inviteOf(m map[string]string) *Invite {
	v := &Invite{ID: m["id"], Role: m["role"], Key: m["key"], State: m["state"], UsedBy: m["used_by"]}
	v.Context, _ = strconv.ParseUint(m["context"], 10, 64)
	v.Runner, _ = strconv.ParseBool(m["runner"])
	v.CreatedAt, _ = strconv.ParseInt(m["created_at"], 10, 64)
	v.ExpiresAt, _ = strconv.ParseInt(m["expires_at"], 10, 64)
	v.UsedAt, _ = strconv.ParseInt(m["used_at"], 10, 64)
	return v
}

func i64(x int64) string { return strconv.FormatInt(x, 10) }

// SaveInvite writes a new invite; an id taken already is ErrExists.
func (s *Registry) SaveInvite(ctx context.Context, v *Invite) error {
	ok, err := s.global.HSetNX(ctx, InviteKey(v.ID), "id", v.ID).Result()
	if err != nil {
		return fmt.Errorf("store.SaveInvite: %w", err)
	}
	if !ok {
		return fmt.Errorf("store.SaveInvite: %w: invite %s", ErrExists, v.ID)
	}
	_, err = s.global.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, InviteKey(v.ID), v.hash()...)
		p.SAdd(ctx, InviteSetKey, v.ID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.SaveInvite: %w", err)
	}
	return nil
}

// LoadInvite reads one invite; an unknown id is ErrNotFound.
func (s *Registry) LoadInvite(ctx context.Context, id string) (*Invite, error) {
	m, err := s.global.HGetAll(ctx, InviteKey(id)).Result()
	if err != nil {
		return nil, fmt.Errorf("store.LoadInvite: %w", err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("store.LoadInvite: %w: invite %s", ErrNotFound, id)
	}
	return inviteOf(m), nil
}

// ListInvites reads every invite, oldest first.
func (s *Registry) ListInvites(ctx context.Context) ([]*Invite, error) {
	ids, err := s.global.SMembers(ctx, InviteSetKey).Result()
	if err != nil {
		return nil, fmt.Errorf("store.ListInvites: %w", err)
	}
	out := make([]*Invite, 0, len(ids))
	for _, id := range ids {
		v, err := s.LoadInvite(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store.ListInvites: %w", err)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// takeInvite: see TakeInvite. It answers "ok", or why not: "unknown",
// "used", "revoked", "expired".
var takeInvite = newScript("takeInvite", `
local st = redis.call('HGET', KEYS[1], 'state')
if not st then return 'unknown' end
if st ~= 'open' then return st end
local exp = tonumber(redis.call('HGET', KEYS[1], 'expires_at') or '0')
if exp > 0 and tonumber(ARGV[1]) >= exp then return 'expired' end
redis.call('HSET', KEYS[1], 'state', 'used', 'used_by', ARGV[2], 'used_at', ARGV[1])
return 'ok'
`)

// TakeInvite marks invite id used by peer at now (unix seconds), in one
// step: it answers "ok", or the state that refuses it ("unknown", "used",
// "revoked", "expired") and then changes nothing.
func (s *Registry) TakeInvite(ctx context.Context, id string, by string, now int64) (string, error) {
	r, err := takeInvite.Run(ctx, s.global, []string{InviteKey(id)}, i64(now), by).Text()
	if err != nil {
		return "", fmt.Errorf("store.TakeInvite: %w", err)
	}
	return r, nil
}

// revokeInvite: see RevokeInvite.
var revokeInvite = newScript("revokeInvite", `
local st = redis.call('HGET', KEYS[1], 'state')
if not st then return 'unknown' end
if st ~= 'open' then return st end
redis.call('HSET', KEYS[1], 'state', 'revoked')
return 'ok'
`)

// RevokeInvite marks an open invite revoked: "ok", or the state that
// stops it ("unknown", "used", "revoked").
func (s *Registry) RevokeInvite(ctx context.Context, id string) (string, error) {
	r, err := revokeInvite.Run(ctx, s.global, []string{InviteKey(id)}).Text()
	if err != nil {
		return "", fmt.Errorf("store.RevokeInvite: %w", err)
	}
	return r, nil
}

// SetPeerName names peer peerID name on this agent (job run --to name).
func (s *Registry) SetPeerName(ctx context.Context, name, peerID string) error {
	if err := s.global.Set(ctx, PeerNameKey(name), peerID, 0).Err(); err != nil {
		return fmt.Errorf("store.SetPeerName: %w", err)
	}
	return nil
}

// PeerByName is the peer ID named name ("" when none is).
func (s *Registry) PeerByName(ctx context.Context, name string) (string, error) {
	id, err := s.global.Get(ctx, PeerNameKey(name)).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store.PeerByName: %w", err)
	}
	return id, nil
}
