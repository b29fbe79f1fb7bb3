package node

import (
	"errors"
	"reflect"
	"strings"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
)

// Reload takes a re-read config (SIGHUP, POST /admin/reload) and says
// what it did. The log level is applied by the caller, who owns the
// logger, and named here as applied; every other key that changed is
// named as needing a restart, since the parts holding it read it at
// start. Calls must not overlap (the caller serialises them).
func (n *Node) Reload(next *config.Config) *wire.ReloadView {
	v := &wire.ReloadView{File: next.File, Applied: []string{}, Restart: changedSections(n.cfg, next)}
	if n.cfg.Log.Level != next.Log.Level {
		v.Applied = append(v.Applied, "log.level")
		n.cfg.Log.Level = next.Log.Level
	}
	if n.cfg.Log.Format != next.Log.Format {
		v.Restart = append(v.Restart, "log.format")
	}
	if len(v.Restart) > 0 {
		n.log.Warn("config reloaded: these keys changed and need a restart to take effect",
			"applied", v.Applied, "restart", v.Restart)
	} else {
		n.log.Info("config reloaded", "applied", v.Applied, "log_level", n.cfg.Log.Level)
	}
	return v
}

// changedSections names, by their YAML key, the top-level sections of
// the config that differ between a and b, all but log (Reload looks
// into it) and the file's path. Walking the struct keeps a section added
// later from being silently ignored.
func changedSections(a, b *config.Config) []string {
	out := []string{}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		f := va.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" || key == "-" || key == "log" {
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, key)
		}
	}
	return out
}

// SetReloader gives the agent the way to re-read its config (the file
// and flags it was started with) for POST /admin/reload; without one the
// endpoint answers that reloading is not supported. Call it before Run.
func (n *Node) SetReloader(fn func() (*wire.ReloadView, error)) {
	n.reload = fn
}

// ReloadConfig re-reads the config with the reloader SetReloader gave
// (SIGHUP calls it).
func (n *Node) ReloadConfig() (*wire.ReloadView, error) {
	if n.reload == nil {
		return nil, errors.New("reload: this agent has no config source")
	}
	return n.reload()
}
