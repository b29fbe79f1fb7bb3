package config

import (
	"os"
	"path/filepath"
	"strings"
)

// AbsDataDir makes dir absolute, expanding a leading "~/" to the home
// directory. The agent runs jobs in directories under the data dir and
// hands them paths inside it, so a relative data dir would be resolved a
// second time from the job's own directory (the script path doubled);
// and "~" in a YAML file is not expanded by any shell.
func AbsDataDir(dir string) string {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
