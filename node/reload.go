package node

import (
	"reflect"

	"github.com/hyphae-run/hyphae/node/config"
)

// Reload takes a re-read config (SIGHUP). The log level is applied by the
// caller, who owns the logger; everything else that changed is reported
// as needing a restart, since the parts holding it read it at start.
func (n *Node) Reload(next *config.Config) []string {
	var restart []string
	old := *n.cfg
	check := func(name string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			restart = append(restart, name)
		}
	}
	check("roles", old.Roles, next.Roles)
	check("redis", old.Redis, next.Redis)
	check("api", old.API, next.API)
	check("overlay", old.Overlay, next.Overlay)
	check("runner", old.Runner, next.Runner)
	check("executors", old.Executors, next.Executors)
	check("bus", old.Bus, next.Bus)
	check("supervisor", old.Supervisor, next.Supervisor)
	n.cfg.Log = next.Log
	if len(restart) > 0 {
		n.log.Warn("config reloaded: these sections changed and need a restart to take effect", "sections", restart)
	} else {
		n.log.Info("config reloaded", "log_level", next.Log.Level)
	}
	return restart
}
