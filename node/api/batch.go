package api

import (
	"bytes"
	"context"
	"encoding/json"
)

// MaxBatch bounds the requests of one JSON-RPC batch.
const MaxBatch = 100

// isBatch reports whether a JSON-RPC message is a batch (an array).
func isBatch(body []byte) bool {
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '['
}

// answerBatch answers a JSON-RPC 2.0 batch: an array of responses to the
// requests that have an id, in order, or nil when all were notifications.
// An empty or unreadable batch is answered with one error, as the
// specification asks.
func (s *Server) answerBatch(ctx context.Context, body []byte) []byte {
	null := json.RawMessage("null")
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		b, _ := json.Marshal(response{JSONRPC: "2.0", ID: null, Error: Errorf(CodeParse, "parse error: %v", err)})
		return b
	}
	if len(items) == 0 || len(items) > MaxBatch {
		b, _ := json.Marshal(response{JSONRPC: "2.0", ID: null,
			Error: Errorf(CodeInvalidRequest, "invalid request: a batch holds 1 to %d requests", MaxBatch)})
		return b
	}
	out := []response{}
	for _, it := range items {
		var req request
		if err := json.Unmarshal(it, &req); err != nil {
			out = append(out, response{JSONRPC: "2.0", ID: null,
				Error: Errorf(CodeInvalidRequest, `invalid request: want {"jsonrpc":"2.0","method":...} (%v)`, err)})
			continue
		}
		resp := s.dispatch(ctx, &req)
		if req.ID != nil {
			out = append(out, resp)
		}
	}
	if len(out) == 0 {
		return nil
	}
	b, _ := json.Marshal(out)
	return b
}
