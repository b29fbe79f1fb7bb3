package node

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// registerHTTP adds the plain endpoints: /health (store and overlay
// reachable), /ready (started, not draining), /info and /metrics — open on
// TCP so probes need no token — and the event streams (token on TCP).
func (n *Node) registerHTTP() {
	n.api.Handle("GET /health", http.HandlerFunc(n.serveHealth), true)
	n.api.Handle("GET /ready", http.HandlerFunc(n.serveReady), true)
	n.api.Handle("GET /info", http.HandlerFunc(n.serveInfo), true)
	n.api.Handle("GET /metrics", n.metrics.handler(), true)
	n.registerEvents()
}

func (n *Node) serveHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{"store": "ok"}
	code := http.StatusOK
	if err := n.store.Ping(ctx); err != nil {
		checks["store"] = err.Error()
		code = http.StatusServiceUnavailable
	}
	switch {
	case n.overlay == nil:
		checks["overlay"] = "not started"
		code = http.StatusServiceUnavailable
	case len(n.overlay.Addrs()) == 0:
		checks["overlay"] = "no listen address"
		code = http.StatusServiceUnavailable
	default:
		checks["overlay"] = "ok"
	}
	writeJSONStatus(w, code, checks)
}

func (n *Node) serveReady(w http.ResponseWriter, _ *http.Request) {
	if !n.ready.Load() || n.draining.Load() {
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"ready": "false", "reason": "draining or starting"})
		return
	}
	writeJSONStatus(w, http.StatusOK, map[string]string{"ready": "true"})
}

func (n *Node) serveInfo(w http.ResponseWriter, r *http.Request) {
	v, err := n.info(r.Context())
	if err != nil {
		writeJSONStatus(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	writeJSONStatus(w, http.StatusOK, v)
}

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
