package ui

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ChangeTick is how often /ui/events looks at the store.
var ChangeTick = 300 * time.Millisecond

// serveChanges is GET /ui/events?context=N: a "change" event when the
// stream opens and whenever the store may have changed since, so the page
// reloads what it shows (a job submitted from the CLI appears without a
// reload). The store is asked one cheap question per tick
// (store.ChangeStamp: the context's key count), and every tenth tick
// counts as a change; the page then reads one page of jobs, cheap while
// the context's jobs are cached (store.BriefCache). The stream
// ends when the agent begins to stop, so it does not hold up shutdown.
func (d *Dashboard) serveChanges(w http.ResponseWriter, r *http.Request) {
	ctxID, err := strconv.ParseUint(r.URL.Query().Get("context"), 10, 64)
	if err != nil {
		http.Error(w, "want ?context=N", http.StatusBadRequest)
		return
	}
	if err := d.h.Store.Registry.CheckContextID(ctxID); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	tick := time.NewTicker(ChangeTick)
	defer tick.Stop()
	last := ""
	for n := 0; !d.h.Draining(); n++ {
		// Every tenth tick says "change" anyway: a job's status may move
		// without its context's key count (store.ChangeStamp).
		if stamp := d.h.Store.Jobs.ChangeStamp(r.Context(), ctxID); stamp != last || n%10 == 0 {
			last = stamp
			if _, err := fmt.Fprintf(w, "retry: 1000\nevent: change\ndata: {\"n\":%d}\n\n", n); err != nil {
				return
			}
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
