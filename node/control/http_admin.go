package control

import (
	"net/http"

	"github.com/hyphae-run/hyphae/node/api"
)

// registerAdmin adds the runner PRD's admin endpoints (seed 003 §10)
// beside the probes: POST /admin/drain and POST /admin/reload. They change
// the agent, so unlike the probes they want the token on TCP.
func (h *Handlers) registerAdmin(srv *api.Server) {
	srv.Handle("POST /admin/drain", http.HandlerFunc(h.serveDrain), false)
	srv.Handle("POST /admin/reload", http.HandlerFunc(h.serveReload), false)
}

// serveDrain does what the first SIGTERM does (and node.drain): no new
// work, running jobs finish within the drain grace, the outbox is
// flushed, the agent exits 0. It answers at once; /ready says 503 from
// now on.
func (h *Handlers) serveDrain(w http.ResponseWriter, _ *http.Request) {
	if h.Drain == nil {
		writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": "this agent cannot be drained from its API"})
		return
	}
	h.Drain()
	writeJSONStatus(w, http.StatusOK, map[string]any{"draining": true,
		"grace_seconds": int64(h.Cfg.Runner.DrainGrace.Seconds())})
}

// serveReload re-reads the config file (and flags) the agent started
// with, as SIGHUP does, and answers which keys were applied and which
// need a restart. A file that does not load or validate is refused (400,
// with why) and the agent keeps the config it has.
func (h *Handlers) serveReload(w http.ResponseWriter, _ *http.Request) {
	if h.Reload == nil {
		writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": "this agent has no config to reload"})
		return
	}
	v, err := h.Reload()
	if err != nil {
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "reload: " + err.Error()})
		return
	}
	writeJSONStatus(w, http.StatusOK, v)
}
