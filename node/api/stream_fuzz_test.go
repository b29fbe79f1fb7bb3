package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

// FuzzStream feeds arbitrary bytes to a stream: it must not panic, and
// everything it writes must be JSON-RPC responses, one per line.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"say":"hi"}}`,
		`{"jsonrpc":"2.0","method":"echo"}{"jsonrpc":"2.0","id":"x","method":"nope"}`,
		`{"jsonrpc":"2.0","id":{"a" : [1, 2]},"method":"echo"}`,
		`{"jsonrpc":"2.0","id":2,"method":5}` + "\n" + `[1,2]`,
		`{"jsonrpc":"2.0",,}`,
		` {"jsonrpc":"1.0","id":null,"method":"echo","params":[]}`,
		`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"say":"\n\u2028"}}`,
	} {
		f.Add([]byte(seed))
	}
	tbl := NewTable()
	Register(tbl, "echo", "says it back", func(_ context.Context, p echoParams) (echoResult, error) { return echoResult{Said: p.Say}, nil })
	s := NewServer(tbl, "", nil, slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		s.serveStream(bufio.NewReader(bytes.NewReader(in)), &out)
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("answer %q is not JSON: %v", sc.Bytes(), err)
			}
			_, hasID := r["id"]
			_, hasResult := r["result"]
			_, hasError := r["error"]
			if string(r["jsonrpc"]) != `"2.0"` || !hasID || hasResult == hasError {
				t.Fatalf("answer %q is not a JSON-RPC 2.0 response", sc.Bytes())
			}
		}
	})
}
