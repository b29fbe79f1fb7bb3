package executor

import (
	"os"
	"path/filepath"
	"strings"
)

// A run an event started gives its jobs the payload as env HYPHAE_EVENT
// (the flow's env, flowfile.EnvEvent); a payload too large for a shell
// variable, or one a script would rather parse from disk, is also in the
// job directory, named by HYPHAE_EVENT_FILE, and goes with the directory.
const (
	envEvent     = "HYPHAE_EVENT"
	envEventFile = "HYPHAE_EVENT_FILE"
)

func eventPath(dir string) string { return filepath.Join(dir, "event.json") }

// eventFileEnv adds HYPHAE_EVENT_FILE to a job's vars when they carry an
// event (runScript writes the file: writeEventFile).
func eventFileEnv(vars map[string]string, dir string) {
	if _, ok := vars[envEvent]; ok {
		vars[envEventFile] = eventPath(dir)
	}
}

// writeEventFile writes HYPHAE_EVENT of env into the job directory, where
// env names that file (eventFileEnv), owned by the job's user when it runs
// as another one. Only that path is written: a job's own env var cannot
// point the runner elsewhere.
func (r *Runner) writeEventFile(dir string, env []string) error {
	file := eventPath(dir)
	var payload string
	named, has := false, false
	for _, kv := range env {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case envEvent:
			payload, has = v, true
		case envEventFile:
			named = v == file
		}
	}
	if !has || !named {
		return nil
	}
	if err := os.WriteFile(file, []byte(payload), 0o600); err != nil {
		return err
	}
	if r.user != nil {
		return os.Chown(file, int(r.user.cred.Uid), int(r.user.cred.Gid))
	}
	return nil
}
