package invite

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// Prefix starts every code of this version.
const Prefix = "hyi1."

// Code is what a join code carries (the package doc has its format).
type Code struct {
	Peer     string   `json:"p"`
	Addrs    []string `json:"a"`
	Name     string   `json:"n,omitempty"`
	ID       string   `json:"i"`
	Secret   []byte   `json:"s"`
	SwarmKey string   `json:"k,omitempty"`
}

// Errors of Parse.
var (
	ErrVersion  = errors.New("not a hyphae join code of a version this agent reads (want hyi1.…)")
	ErrMistyped = errors.New("the code is mistyped or cut short: its checksum does not match")
)

// String encodes c as a one-line code.
func (c *Code) String() string {
	b, _ := json.Marshal(c) // a struct of strings: cannot fail
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return Prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Parse reads a code; a code that is not one, or is mistyped, says so.
func Parse(s string) (*Code, error) {
	s = strings.TrimSpace(s)
	body, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return nil, ErrVersion
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(b) < 5 {
		return nil, ErrMistyped
	}
	payload, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(payload) != sum {
		return nil, ErrMistyped
	}
	var c Code
	d := json.NewDecoder(bytes.NewReader(payload))
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("invite.Parse: %w", err)
	}
	if c.Peer == "" || c.ID == "" || len(c.Secret) != secretLen {
		return nil, fmt.Errorf("invite.Parse: the code lacks its peer, id or secret")
	}
	return &c, nil
}
