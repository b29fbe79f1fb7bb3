package ui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ChangeTick is how often /ui/events looks at the store.
var ChangeTick = 300 * time.Millisecond

// serveChanges is GET /ui/events?context=N: a "change" event when the
// stream opens and whenever the store may have changed since, so the page
// reloads what it shows (a job submitted from the CLI appears without a
// reload). The store is asked one cheap question per tick: its count of
// writes (INFO persistence), else the context's key count; a change
// anywhere wakes the page, which then reads one page of jobs. The stream
// ends when the agent begins to stop, so it does not hold up shutdown.
func (d *Dashboard) serveChanges(w http.ResponseWriter, r *http.Request) {
	ctxID, err := strconv.ParseUint(r.URL.Query().Get("context"), 10, 64)
	if err != nil {
		http.Error(w, "want ?context=N", http.StatusBadRequest)
		return
	}
	db, err := d.h.Store.DB(ctxID)
	if err != nil {
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
		if fp := fingerprint(r.Context(), db); fp != last {
			last = fp
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

// fingerprint changes when the store may have: the server's writes since
// its last save with the context DB's key count ("" when neither answers,
// as with a store that is away).
func fingerprint(ctx context.Context, db *redis.Client) string {
	fp := ""
	if info, err := db.Info(ctx, "persistence").Result(); err == nil {
		fp = infoField(info, "rdb_changes_since_last_save") + "/" + infoField(info, "rdb_last_save_time")
	}
	if n, err := db.DBSize(ctx).Result(); err == nil {
		fp += "/" + strconv.FormatInt(n, 10)
	}
	return fp
}

func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
