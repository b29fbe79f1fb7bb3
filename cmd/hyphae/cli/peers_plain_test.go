package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// `hyphae peers` prints what a peer announced as text: an ESC sequence in
// its host name or version (from an agent that did not strip it) does not
// reach the terminal.
func TestPeersTablePrintsNoControlBytes(t *testing.T) {
	p := wire.PeerView{PeerID: "12D3KooWAbCdEfGhIjKlMnOpQrStUvWxYz123456", State: "up", Roles: []string{"runner\u202e"},
		ScriptTypes: []string{"sh\x07"}, LastSeen: time.Now().Unix(), Version: "0.1\x1b]0;pwned\x07", Host: "evil\x1b[2Jname"}
	var b bytes.Buffer
	printPeerTable(&b, []wire.PeerView{p}, true)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, " evil[2Jname ") || !strings.Contains(out, " 0.1]0;pwned\n") {
		t.Fatalf("peers table %q: want the host and version without control bytes", out)
	}
}
