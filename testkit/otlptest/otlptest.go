// Package otlptest is an OTLP/HTTP trace receiver for tests: an
// httptest server that decodes the protobuf export requests an agent's
// exporter posts and keeps the spans they carry.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, ids in hex; Peer is its resource's
// hyphae.peer_id (the agent that made it).
type Span struct {
	Peer, Name, TraceID, SpanID, ParentID string
}

// Receiver is a running OTLP/HTTP endpoint.
type Receiver struct {
	URL string // the endpoint's base URL (spans are posted to URL/v1/traces)

	mu       sync.Mutex
	spans    []Span // guarded by mu
	requests int    // guarded by mu
}

// Start starts a Receiver, stopped when t ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	b, err := io.ReadAll(body)
	var in coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &in)
	}
	if err != nil || req.URL.Path != "/v1/traces" {
		http.Error(w, "want an OTLP trace export on /v1/traces", http.StatusBadRequest)
		return
	}
	r.add(&in)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) add(in *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	for _, rs := range in.GetResourceSpans() {
		peer := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "hyphae.peer_id" {
				peer = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, Span{Peer: peer, Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()),
					SpanID: hex.EncodeToString(s.GetSpanId()), ParentID: hex.EncodeToString(s.GetParentSpanId())})
			}
		}
	}
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Requests is how many export requests came.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}
