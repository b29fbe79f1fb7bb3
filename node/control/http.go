package control

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
)

// RegisterHTTP adds the plain endpoints to srv: /health (store and
// overlay reachable), /ready (started, not draining), /info and /metrics —
// open on TCP so probes need no token — and the event streams (token on
// TCP), and the admin endpoints (token on TCP).
func (h *Handlers) RegisterHTTP(srv *api.Server) {
	srv.Handle("GET /health", http.HandlerFunc(h.serveHealth), true)
	srv.Handle("GET /ready", http.HandlerFunc(h.serveReady), true)
	srv.Handle("GET /info", http.HandlerFunc(h.serveInfo), true)
	srv.Handle("GET /metrics", h.Metrics.Handler(), true)
	h.registerAdmin(srv) // http_admin.go
	h.registerEvents(srv)
	h.registerFilesHTTP(srv) // methods_files.go
}

func (h *Handlers) serveHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{"store": "ok"}
	code := http.StatusOK
	if err := cmp.Or(h.storeUnavailable(), h.Store.Server.Ping(ctx)); err != nil {
		checks["store"] = err.Error()
		code = http.StatusServiceUnavailable
	}
	switch {
	case h.Overlay == nil:
		checks["overlay"] = "not started"
		code = http.StatusServiceUnavailable
	case len(h.Overlay.Addrs()) == 0:
		checks["overlay"] = "no listen address"
		code = http.StatusServiceUnavailable
	default:
		checks["overlay"] = "ok"
	}
	writeJSONStatus(w, code, checks)
}

func (h *Handlers) serveReady(w http.ResponseWriter, _ *http.Request) {
	if !h.Ready() || h.Draining() {
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"ready": "false", "reason": "draining or starting"})
		return
	}
	if err := h.storeUnavailable(); err != nil {
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"ready": "false", "reason": err.Error()})
		return
	}
	writeJSONStatus(w, http.StatusOK, map[string]string{"ready": "true"})
}

func (h *Handlers) serveInfo(w http.ResponseWriter, r *http.Request) {
	v, err := h.info(r.Context())
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
