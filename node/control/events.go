package control

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// Live event streams (server-sent events), token-guarded on TCP:
//
//	GET /events/job?context=N&key=job:C:I   "log" events ({"lines":[…], "entries":[{ts, stream, line}…]}), then one "end" event with the job
//	GET /events/flow?context=N&id=F         a "flow" event (the flow view) whenever it changes, "end" when it ends
func (h *Handlers) registerEvents(srv *api.Server) {
	srv.Handle("GET /events/job", http.HandlerFunc(h.serveJobEvents), false)
	srv.Handle("GET /events/flow", http.HandlerFunc(h.serveFlowEvents), false)
}

// sse prepares a response for server-sent events.
func sse(w http.ResponseWriter) (func(event string, v any) error, bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	return func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		fl.Flush()
		return nil
	}, true
}

func (h *Handlers) serveJobEvents(w http.ResponseWriter, r *http.Request) {
	ctxID, err := strconv.ParseUint(r.URL.Query().Get("context"), 10, 64)
	key := r.URL.Query().Get("key")
	if _, _, kerr := store.ParseJobKey(key); err != nil || kerr != nil {
		http.Error(w, "want ?context=N&key=job:<caller>:<id>", http.StatusBadRequest)
		return
	}
	if _, err := h.Store.Jobs.LoadJobKey(r.Context(), ctxID, key); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	send, ok := sse(w)
	if !ok {
		return
	}
	var at int64 // the index of the batch's first line
	_, err = h.Store.Logs.FollowLogs(r.Context(), ctxID, key, 0, func(lines []string) error {
		ev := map[string]any{"lines": lines, "entries": h.entriesAt(r.Context(), ctxID, key, at, lines)}
		at += int64(len(lines))
		return send("log", ev)
	})
	if err != nil || r.Context().Err() != nil {
		return
	}
	if j, err := h.Store.Jobs.LoadJobKey(r.Context(), ctxID, key); err == nil {
		_ = send("end", jobView(j))
	}
}

func (h *Handlers) serveFlowEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ctxID, err1 := strconv.ParseUint(q.Get("context"), 10, 64)
	id, err2 := strconv.ParseUint(q.Get("id"), 10, 64)
	if err1 != nil || err2 != nil || h.Sched == nil {
		http.Error(w, "want ?context=N&id=F on an agent with the supervisor role", http.StatusBadRequest)
		return
	}
	st, err := h.Sched.Status(r.Context(), ctxID, id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	send, ok := sse(w)
	if !ok {
		return
	}
	for {
		if err := send("flow", *flowView(st)); err != nil {
			return
		}
		if st.Status.Terminal() {
			_ = send("end", *flowView(st))
			return
		}
		next, err := h.Sched.Next(r.Context(), ctxID, id, st.Version)
		if err != nil || next == nil {
			return
		}
		st = next
	}
}
