package control

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/node/invite"
)

// defaultInviteTTL is how long a code holds when invite.create names no expiry.
const defaultInviteTTL = time.Hour

// registerInviteMethods adds invite.* and serves the join handshake
// (node/invite) on the overlay's host.
func (h *Handlers) registerInviteMethods() {
	api.Register(h.table, "invite.create", "Make a one-time join code: {context, role, runner, expires} "+
		"(expires a Go duration, default 1h, 0 never); the joiner gets the role (and a runner record with runner).",
		h.inviteCreate)
	api.Register(h.table, "invite.list", "List this agent's invites and their state (open, used, revoked, expired).",
		func(ctx context.Context, _ struct{}) ([]*wire.InviteView, error) { return h.inviteList(ctx) })
	api.Register(h.table, "invite.revoke", "Revoke an open invite: {id}.", h.inviteRevoke)
	api.Register(h.table, "invite.join", "Join the agent of a code from invite.create: {code, name}; "+
		"this agent then calls it name (default its host name) in job.run's to.", h.inviteJoin)
	if st, ok := h.Store.Registry.(invite.Store); ok && h.Overlay != nil {
		srv := &invite.Server{Store: st, Self: h.ID.PeerID(), Name: hostName(), ActorID: h.Self.ID,
			Grant: h.inviteGrant, AddRunner: h.inviteRunner, Log: h.log()}
		h.Overlay.Host().SetStreamHandler(invite.Protocol, srv.Handle)
	}
}

// invites is the store's invite records: the registry's concern type
// holds them (context/store/invites.go).
func (h *Handlers) invites() (invite.Store, error) {
	st, ok := h.Store.Registry.(invite.Store)
	if !ok {
		return nil, api.Errorf(api.CodeUnavailable, "this agent's store keeps no invites")
	}
	return st, nil
}

func (h *Handlers) inviteCreate(ctx context.Context, p wire.InviteCreateParams) (*wire.InviteView, error) {
	if !model.Role(p.Role).Valid() {
		return nil, api.InvalidParams("role", "%q: want admin, executor or reader", p.Role)
	}
	ttl := defaultInviteTTL
	if p.Expires != "" {
		d, err := time.ParseDuration(p.Expires)
		if err != nil || d < 0 {
			return nil, api.InvalidParams("expires", "%q: want a duration such as 1h or 30m (0: never)", p.Expires)
		}
		ttl = d
	}
	if _, err := h.Store.Registry.LoadContext(ctx, p.Context); err != nil {
		return nil, err
	}
	st, err := h.invites()
	if err != nil {
		return nil, err
	}
	swarm, err := h.swarmKey()
	if err != nil {
		return nil, err
	}
	code, v, err := invite.Create(ctx, st, p.Context, p.Role, p.Runner, ttl, time.Now())
	if err != nil {
		return nil, err
	}
	code.Peer, code.Name, code.SwarmKey = h.ID.PeerID().String(), hostName(), swarm
	for _, a := range h.Overlay.Addrs() {
		code.Addrs = append(code.Addrs, a.String())
	}
	out := inviteView(v, time.Now())
	out.Code = code.String()
	return out, nil
}

func (h *Handlers) inviteList(ctx context.Context) ([]*wire.InviteView, error) {
	st, err := h.invites()
	if err != nil {
		return nil, err
	}
	vs, err := st.ListInvites(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*wire.InviteView, 0, len(vs))
	now := time.Now()
	for _, v := range vs {
		out = append(out, inviteView(v, now))
	}
	return out, nil
}

func (h *Handlers) inviteRevoke(ctx context.Context, p wire.InviteRef) (*wire.InviteView, error) {
	st, err := h.invites()
	if err != nil {
		return nil, err
	}
	if p.ID == "" {
		return nil, api.InvalidParams("id", "required: an invite id (invite list shows them)")
	}
	switch r, err := st.RevokeInvite(ctx, p.ID); {
	case err != nil:
		return nil, err
	case r == "unknown":
		return nil, fmt.Errorf("invite %s: %w", p.ID, store.ErrNotFound)
	case r != "ok":
		return nil, api.Errorf(api.CodeConflict, "invite %s is %s already", p.ID, r)
	}
	v, err := st.LoadInvite(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	return inviteView(v, time.Now()), nil
}

func inviteView(v *store.Invite, now time.Time) *wire.InviteView {
	state := v.State
	if state == "open" && v.ExpiresAt > 0 && now.Unix() >= v.ExpiresAt {
		state = "expired"
	}
	return &wire.InviteView{ID: v.ID, Context: v.Context, Role: v.Role, Runner: v.Runner, State: state,
		CreatedAt: v.CreatedAt, ExpiresAt: v.ExpiresAt, UsedBy: v.UsedBy, UsedAt: v.UsedAt}
}

// inviteGrant is invite.Server's Grant: context.grant's path.
func (h *Handlers) inviteGrant(ctx context.Context, ctxID uint64, peerID, role string) error {
	_, err := h.grant(ctx, wire.GrantParams{ID: ctxID, Actor: peerID, Role: role}, true)
	return err
}

// inviteRunner is invite.Server's AddRunner: runner.create's record, or the
// one the context has for that peer already.
func (h *Handlers) inviteRunner(ctx context.Context, ctxID uint64, peerID string) (uint64, error) {
	rs, err := h.Store.Registry.ListRunners(ctx, ctxID)
	if err != nil {
		return 0, err
	}
	for _, r := range rs {
		if r.Pubkey == peerID && !r.Local {
			return r.ID, nil
		}
	}
	r := &model.Runner{Pubkey: peerID}
	if err := h.Store.Registry.SaveRunner(ctx, ctxID, r); err != nil {
		return 0, err
	}
	return r.ID, nil
}

// swarmKey is the text of this agent's swarm key file ("" on a public network).
func (h *Handlers) swarmKey() (string, error) {
	if h.Cfg == nil || h.Cfg.Overlay.SwarmKey == "" {
		return "", nil
	}
	b, err := os.ReadFile(h.Cfg.Overlay.SwarmKey)
	if err != nil {
		return "", fmt.Errorf("invite: the swarm key: %w", err)
	}
	return string(b), nil
}

// hostName is this machine's name ("" when the system will not say).
func hostName() string {
	n, _ := os.Hostname()
	return n
}

// checkSwarm refuses a code of a private network this agent is not on,
// writing the key beside the config for the restart that joins it.
func (h *Handlers) checkSwarm(c *invite.Code) error {
	mine, err := h.swarmKey()
	if err != nil {
		return err
	}
	if c.SwarmKey == "" || bytes.Equal(bytes.TrimSpace([]byte(mine)), bytes.TrimSpace([]byte(c.SwarmKey))) {
		return nil
	}
	path := filepath.Join(h.Cfg.DataDir, "swarm.key")
	if err := os.WriteFile(path, []byte(c.SwarmKey), 0o600); err != nil {
		return fmt.Errorf("invite: write the swarm key: %w", err)
	}
	if named, err := config.NameSwarmKey(h.Cfg.File, path); err == nil && named {
		return api.Errorf(api.CodeUnavailable, "that agent's network is private: its swarm key is now in %s "+
			"and this agent's config (%s) names it; restart this agent and run the same hyphae join again "+
			"(the code is not used)", path, h.Cfg.File)
	}
	return api.Errorf(api.CodeUnavailable, "that agent's network is private: its swarm key is in %s; "+
		"set overlay.swarm_key: %s in the config, restart this agent and join again (the code is not used)", path, path)
}
