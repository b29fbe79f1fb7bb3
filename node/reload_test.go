package node

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/config"
)

// A reload applies the log level and names every other changed section,
// by its YAML key, as needing a restart: retention and the like too, not
// only the sections listed by hand once.
func TestReloadSaysWhatItApplied(t *testing.T) {
	t.Parallel()
	old := &config.Config{Log: config.Log{Level: "info"}}
	old.Defaults()
	next := *old
	next.File = "/etc/hyphae.yaml"
	next.Log.Level = "debug"
	next.Runner.Concurrency = old.Runner.Concurrency + 1
	next.Retention.MaxAge = 3 * time.Hour
	n := &Node{cfg: old, log: slog.New(slog.DiscardHandler)}
	v := n.Reload(&next)
	if !slices.Equal(v.Applied, []string{"log.level"}) || n.cfg.Log.Level != "debug" {
		t.Errorf("applied %v (level now %q), want [log.level]", v.Applied, n.cfg.Log.Level)
	}
	if !slices.Equal(v.Restart, []string{"runner", "retention"}) {
		t.Errorf("restart %v, want [runner retention]", v.Restart)
	}
	if v.File != "/etc/hyphae.yaml" {
		t.Errorf("file %q", v.File)
	}
	if v := n.Reload(&next); len(v.Applied)+len(v.Restart) != 2 || len(v.Applied) != 0 {
		t.Errorf("the same config again: %+v, want only the restart sections still pending", v)
	}
}
