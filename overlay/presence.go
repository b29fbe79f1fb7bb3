package overlay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hyphae-run/hyphae/context/model"
)

// Presence record limits.
const (
	presenceVersion   = 1
	MaxPresenceSize   = 8 << 10 // bytes of one encoded record
	maxListLen        = 64      // entries in addrs, roles, types
	maxAnnouncedAddrs = 32
	maxStringLen      = 256
)

// presenceRecord is the presence wire format (see the package doc).
type presenceRecord struct {
	V     int      `json:"v"`
	ID    string   `json:"id"`
	Addrs []string `json:"addrs"`
	Roles []string `json:"roles"`
	Types []string `json:"types"`
	Cap   int64    `json:"cap"`
	Load  int64    `json:"load"`
	Ver   string   `json:"ver"`
	Up    int64    `json:"up"`
	Seq   uint64   `json:"seq"`
	// Host is the agent's host name; absent from older agents' records,
	// which decode as before (and older agents ignore it).
	Host string `json:"host,omitempty"`

	peer peer.ID // parsed ID, set by parsePresence
}

var errPresenceVersion = errors.New("unknown presence version")

// parsePresence decodes and checks a record published by author.
func parsePresence(data []byte, author peer.ID) (*presenceRecord, error) {
	if len(data) > MaxPresenceSize {
		return nil, fmt.Errorf("record of %d bytes", len(data))
	}
	var r presenceRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.V != presenceVersion {
		return nil, errPresenceVersion
	}
	id, err := peer.Decode(r.ID)
	if err != nil {
		return nil, fmt.Errorf("id: %w", err)
	}
	if id != author {
		return nil, fmt.Errorf("id %s is not the author %s", id, author)
	}
	r.peer = id
	r.plain()
	return &r, r.check()
}

// plain strips control bytes, C1 controls and bidi overrides from the
// record's strings (model.PlainText): they reach `hyphae peers` and the
// dashboard, and a stranger may announce anything. A list entry left
// empty fails check.
func (r *presenceRecord) plain() {
	r.Ver, r.Host = model.PlainText(r.Ver), model.PlainText(r.Host)
	model.PlainTexts(r.Addrs)
	model.PlainTexts(r.Roles)
	model.PlainTexts(r.Types)
}

// check bounds the record's fields.
func (r *presenceRecord) check() error {
	if r.Seq == 0 || r.Cap < 0 || r.Load < 0 || r.Up < 0 || len(r.Ver) > maxStringLen || len(r.Host) > maxStringLen {
		return errors.New("bad seq, cap, load, up, ver or host")
	}
	for _, list := range [][]string{r.Addrs, r.Roles, r.Types} {
		if len(list) > maxListLen {
			return fmt.Errorf("list of %d entries", len(list))
		}
		for _, s := range list {
			if s == "" || len(s) > maxStringLen {
				return fmt.Errorf("bad list entry %q", s)
			}
		}
	}
	for _, a := range r.Addrs {
		if _, err := ma.NewMultiaddr(a); err != nil {
			return fmt.Errorf("addr %q: %w", a, err)
		}
	}
	return nil
}

// validatePresence rejects malformed, oversized or forged records and
// ignores stale ones; the parsed record travels as ValidatorData.
func (o *Overlay) validatePresence(_ context.Context, _ peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	r, err := parsePresence(m.Data, m.GetFrom())
	switch {
	case errors.Is(err, errPresenceVersion):
		return pubsub.ValidationIgnore
	case err != nil:
		o.log.Debug("overlay: invalid presence", "from", m.ReceivedFrom, "author", m.GetFrom(), "err", err)
		return pubsub.ValidationReject
	case r.peer != o.id && r.Seq <= o.table.lastSeq(r.peer):
		return pubsub.ValidationIgnore
	}
	m.ValidatorData = r
	return pubsub.ValidationAccept
}

// record builds this agent's next presence record.
func (o *Overlay) record(seq uint64) ([]byte, error) {
	info := o.info()
	var addrs []string
	for _, a := range o.host.Addrs() {
		if len(addrs) == maxAnnouncedAddrs {
			break
		}
		addrs = append(addrs, a.String())
	}
	r := presenceRecord{
		V: presenceVersion, ID: o.id.String(), Addrs: addrs,
		Roles: clip(info.Roles), Types: clip(info.ScriptTypes),
		Cap: info.Capacity, Load: info.Load, Ver: info.Version,
		Up: int64(time.Since(o.started).Seconds()), Seq: seq, Host: hostName(),
	}
	return json.Marshal(&r)
}

// hostName is this machine's host name as presence announces it, read
// once ("" when the system will not say).
var hostName = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || len(h) > maxStringLen {
		return ""
	}
	return h
})

// withHost is a row's Extra (old, kept as it was) with the host name
// record r announces: one announced replaces the last, and a record
// without one (an older agent) leaves it as it was.
func (r *presenceRecord) withHost(old model.Hash) model.Hash {
	if r.Host == "" || old[model.ExtraHost] == r.Host {
		return old
	}
	h := make(model.Hash, len(old)+1)
	maps.Copy(h, old)
	h[model.ExtraHost] = r.Host
	return h
}

// clip bounds a list to what validators accept.
func clip(list []string) []string {
	if len(list) > maxListLen {
		list = list[:maxListLen]
	}
	return list
}
