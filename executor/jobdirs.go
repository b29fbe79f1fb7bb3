package executor

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/store"
)

// Where job attempts run, for the runner and for whoever cleans up after
// it (context/retention): <DataDir>/contexts/<N>/jobs/<caller>-<id>-<attempt>.

// JobsDir is <dataDir>/contexts/<N>/jobs, the directories of the attempts
// of context N's jobs.
func JobsDir(dataDir string, ctxID uint64) string {
	return filepath.Join(dataDir, "contexts", strconv.FormatUint(ctxID, 10), "jobs")
}

// jobDirName is the name of attempt's directory of job key:
// <caller>-<id>-<attempt> (a key that is not job:<caller>:<id> is made
// safe by safeName).
func jobDirName(key string, attempt int64) string {
	name := safeName(key)
	if caller, id, err := store.ParseJobKey(key); err == nil {
		name = fmt.Sprintf("%d-%d", caller, id)
	}
	return fmt.Sprintf("%s-%d", name, attempt)
}

// JobOfDir reads an attempt directory's name back into its job key; false
// for a name that is not <caller>-<id>-<attempt>.
func JobOfDir(name string) (string, bool) {
	parts := strings.Split(name, "-")
	if len(parts) != 3 {
		return "", false
	}
	var n [3]uint64
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return "", false
		}
		n[i] = v
	}
	return store.JobKey(n[0], n[1]), true
}
