package invite

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/identity"
)

// Create makes an invite into context ctxID with role, good for ttl (0:
// no expiry), and the code that carries it. runner asks that the joiner be
// registered as a runner of the context.
func Create(ctx context.Context, st Store, ctxID uint64, role string, runner bool, ttl time.Duration, now time.Time) (*Code, *store.Invite, error) {
	id, secret := newSecret()
	v := &store.Invite{ID: id, Context: ctxID, Role: role, Runner: runner, Key: fmt.Sprintf("%x", KeyOf(secret)),
		CreatedAt: now.Unix(), State: "open"}
	if ttl > 0 {
		v.ExpiresAt = now.Add(ttl).Unix()
	}
	if err := st.SaveInvite(ctx, v); err != nil {
		return nil, nil, fmt.Errorf("invite.Create: %w", err)
	}
	return &Code{ID: id, Secret: secret}, v, nil
}

// NewRequest is bob's proof for code c, signed by id at t.
func NewRequest(c *Code, id *identity.Identity, t time.Time) (*Request, error) {
	bob := id.PeerID().String()
	m := message(c.ID, c.Peer, bob, t.Unix())
	mac := macOf(KeyOf(c.Secret), m)
	sig, err := id.Sign(signed(m, mac))
	if err != nil {
		return nil, fmt.Errorf("invite.NewRequest: %w", err)
	}
	return &Request{ID: c.ID, Pubkey: bob, Time: t.Unix(), MAC: mac, Sig: base64.StdEncoding.EncodeToString(sig)}, nil
}

// Join dials the agent of code c from h and asks it to admit req.
func Join(ctx context.Context, h host.Host, c *Code, req *Request) (*Answer, error) {
	alice, err := peer.Decode(c.Peer)
	if err != nil {
		return nil, fmt.Errorf("invite.Join: the code's peer: %w", err)
	}
	for _, s := range c.Addrs {
		if a, err := ma.NewMultiaddr(s); err == nil {
			h.Peerstore().AddAddr(alice, a, peerstore.TempAddrTTL)
		}
	}
	if err := h.Connect(ctx, peer.AddrInfo{ID: alice}); err != nil {
		return nil, fmt.Errorf("invite.Join: dial %s: %w", alice, err)
	}
	// The handshake is one small line each way: it may cross a relay
	// (alice behind NAT) rather than wait for a hole punch that may fail.
	st, err := h.NewStream(network.WithAllowLimitedConn(ctx, "invite"), alice, Protocol)
	if err != nil {
		return nil, fmt.Errorf("invite.Join: open a stream to %s: %w", alice, err)
	}
	defer st.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = st.SetDeadline(dl)
	}
	b, _ := json.Marshal(req)
	if _, err := st.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("invite.Join: send: %w", err)
	}
	line, err := bufio.NewReader(io.LimitReader(st, maxLine)).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("invite.Join: read the answer: %w", err)
	}
	var a Answer
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, fmt.Errorf("invite.Join: the answer: %w", err)
	}
	return &a, nil
}
