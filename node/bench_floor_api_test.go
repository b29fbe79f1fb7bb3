package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCrossAgentFloorAPI is BenchmarkCrossAgentFloor behind a minimal
// local API call, as BenchmarkCrossAgentRoundTrip's round trip is: the
// client POSTs {"n": N} over HTTP on a unix socket, the handler runs the
// floor round trip and answers {"ok": true}. The API is the least an API
// can be — one HTTP handler, JSON in and out, no JSON-RPC envelope, auth,
// routing table or waiter — so what it adds to the floor is a lower bound
// of what any API in front of the round trip costs on this machine. Raw
// gossipsub is interleaved as in the floor, one for one.
//
// Metrics: p50-µs/p99-µs, raw-p50-µs/raw-p99-µs, ratio-p50 (as the floor's).
func BenchmarkCrossAgentFloorAPI(b *testing.B) { benchFloorAPI(b, false) }

// BenchmarkCrossAgentFloorAPIDirect is BenchmarkCrossAgentFloorAPI with the
// envelopes on direct streams (BenchmarkCrossAgentFloorDirect).
func BenchmarkCrossAgentFloorAPIDirect(b *testing.B) { benchFloorAPI(b, true) }

func benchFloorAPI(b *testing.B, direct bool) {
	f := newFloorBench(b, direct)
	call := floorAPI(b, f)
	n := 0
	run := func() floorSample {
		n++
		t0 := time.Now()
		if err := call(n); err != nil {
			b.Fatalf("floor round trip %d through the API: %v", n, err)
		}
		total := time.Since(t0)
		f.bob.wait(b)
		return floorSample{total: total, raw: f.rawRoundTrip(b)}
	}
	for range floorWarmup {
		run()
	}
	var s floorSamples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.add(run())
	}
	b.StopTimer()
	s.report(b)
}

// floorAPI serves the floor round trip on a unix socket and returns the
// client side: one call per round trip, on a kept-alive connection.
func floorAPI(b *testing.B, f *floorBench) func(n int) error {
	sock := filepath.Join(b.TempDir(), "api.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /run", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ N int }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, _, err := f.alice.roundTrip(r.Context(), f.bob.id.PeerID(), req.N); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]bool{"ok": true})
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	return func(n int) error {
		body, _ := json.Marshal(map[string]int{"n": n})
		ctx, cancel := context.WithTimeout(f.ctx, floorTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://floor/run", bytes.NewReader(body))
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var out struct{ OK bool }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || !out.OK {
			return errors.Join(errors.New(resp.Status), err)
		}
		return nil
	}
}
