package executor

import "log/slog"

// RemoveCgroupsOf kills and removes what a runner with cfg left in its
// cgroups (a test's runner process killed with -9 and not restarted).
func RemoveCgroupsOf(cfg Config) {
	if c, _ := setupCgroups(cfg.withDefaults(), slog.New(slog.DiscardHandler)); c != nil {
		c.remove()
	}
}
