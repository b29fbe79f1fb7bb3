package invite

import (
	"bufio"
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/store"
)

// Protocol is the join handshake's libp2p protocol.
const Protocol = "/hyphae/invite/1.0.0"

// MaxSkew is how far bob's clock may be from alice's.
const MaxSkew = 5 * time.Minute

// maxLine bounds one line of the handshake.
const maxLine = 64 << 10

// Store is what this package needs of the store.
type Store interface {
	SaveInvite(ctx context.Context, v *store.Invite) error
	LoadInvite(ctx context.Context, id string) (*store.Invite, error)
	ListInvites(ctx context.Context) ([]*store.Invite, error)
	TakeInvite(ctx context.Context, id string, by string, now int64) (string, error)
	RevokeInvite(ctx context.Context, id string) (string, error)
	SetPeerName(ctx context.Context, name, peerID string) error
	PeerByName(ctx context.Context, name string) (string, error)
}

// Request is bob's line of the handshake.
type Request struct {
	ID     string `json:"id"`
	Pubkey string `json:"pubkey"`
	Time   int64  `json:"time"`
	MAC    string `json:"mac"`
	Sig    string `json:"sig"`
}

// Answer is alice's line: OK, or Reason says why not.
type Answer struct {
	OK      bool   `json:"ok"`
	Reason  string `json:"reason,omitempty"`
	Context uint64 `json:"context,omitempty"`
	Role    string `json:"role,omitempty"`
	Runner  string `json:"runner,omitempty"` // runner:<id> of bob's record, with --runner
	ActorID uint64 `json:"actor_id,omitempty"`
	Peer    string `json:"peer,omitempty"`
	Name    string `json:"name,omitempty"`
}

// Server is alice's side: it admits joins.
type Server struct {
	Store   Store
	Self    peer.ID
	Name    string // alice's host name
	ActorID uint64 // alice's actor
	// Grant gives peer the role in context ctxID (context.grant's path).
	Grant func(ctx context.Context, ctxID uint64, peerID, role string) error
	// AddRunner records peer as a runner of ctxID; it answers the record's id.
	AddRunner func(ctx context.Context, ctxID uint64, peerID string) (uint64, error)
	Now       func() time.Time // nil: time.Now
	Log       *slog.Logger
}

// Handle serves one join stream.
func (s *Server) Handle(st network.Stream) {
	defer st.Close()
	_ = st.SetDeadline(time.Now().Add(30 * time.Second))
	var req Request
	line, err := bufio.NewReaderSize(io.LimitReader(st, maxLine), 4096).ReadBytes('\n')
	a := &Answer{Reason: "malformed request"}
	if err == nil && json.Unmarshal(line, &req) == nil {
		a = s.Admit(context.Background(), st.Conn().RemotePeer(), &req)
	}
	if !a.OK {
		s.log().Info("invite: join refused", "peer", st.Conn().RemotePeer(), "invite", req.ID, "reason", a.Reason)
	}
	b, _ := json.Marshal(a)
	_, _ = st.Write(append(b, '\n'))
}

// Admit checks req from peer from and, when it holds, takes the invite and
// grants what it promised. A refusal changes nothing.
func (s *Server) Admit(ctx context.Context, from peer.ID, req *Request) *Answer {
	v, reason := s.check(ctx, from, req)
	if reason != "" {
		return &Answer{Reason: reason}
	}
	now := s.now().Unix()
	switch r, err := s.Store.TakeInvite(ctx, v.ID, req.Pubkey, now); {
	case err != nil:
		s.log().Warn("invite: take", "err", err)
		return &Answer{Reason: "alice's store failed"}
	case r == "used":
		return &Answer{Reason: "already used"}
	case r != "ok":
		return &Answer{Reason: r}
	}
	a := &Answer{OK: true, Context: v.Context, Role: v.Role, ActorID: s.ActorID, Peer: s.Self.String(), Name: s.Name}
	if err := s.Grant(ctx, v.Context, req.Pubkey, v.Role); err != nil {
		s.log().Warn("invite: grant", "err", err)
		return &Answer{Reason: fmt.Sprintf("granting the role failed: %v", err)}
	}
	if v.Runner {
		id, err := s.AddRunner(ctx, v.Context, req.Pubkey)
		if err != nil {
			return &Answer{Reason: fmt.Sprintf("registering the runner failed: %v", err)}
		}
		a.Runner = fmt.Sprintf("runner:%d", id)
	}
	return a
}

// check is every refusal that needs no write: "" when req holds.
func (s *Server) check(ctx context.Context, from peer.ID, req *Request) (*store.Invite, string) {
	bob, err := peer.Decode(req.Pubkey)
	if err != nil || bob != from {
		return nil, "forged: the pubkey is not the peer that dialled"
	}
	if d := time.Duration(s.now().Unix()-req.Time) * time.Second; d > MaxSkew || d < -MaxSkew {
		return nil, fmt.Sprintf("clocks differ by %s (at most %s): set the clock", d.Abs(), MaxSkew)
	}
	v, err := s.Store.LoadInvite(ctx, req.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "unknown invite (forged, or made by another agent)"
	}
	if err != nil {
		return nil, "alice's store failed"
	}
	key, _ := hex.DecodeString(v.Key)
	m := message(req.ID, s.Self.String(), req.Pubkey, req.Time)
	if !hmac.Equal([]byte(macOf(key, m)), []byte(req.MAC)) {
		return nil, "forged: the secret does not match"
	}
	pub, err := bob.ExtractPublicKey()
	sig, err2 := base64.StdEncoding.DecodeString(req.Sig)
	if err != nil || err2 != nil {
		return nil, "forged: bad signature"
	}
	if ok, err := pub.Verify(signed(m, req.MAC), sig); err != nil || !ok {
		return nil, "forged: bad signature"
	}
	return v, ""
}

func (s *Server) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
