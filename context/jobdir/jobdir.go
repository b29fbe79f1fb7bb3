// Package jobdir is the layout of job attempt directories on disk, shared
// by the runner that makes them and the janitor that removes them:
//
//	<DataDir>/contexts/<N>/jobs/<caller>-<id>-<attempt>
//
// It imports nothing of the project above the store's key helpers, so
// neither side reaches into the other.
package jobdir

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/store"
)

// JobsDir is <dataDir>/contexts/<N>/jobs, the directories of the attempts
// of context N's jobs.
func JobsDir(dataDir string, ctxID uint64) string {
	return filepath.Join(dataDir, "contexts", strconv.FormatUint(ctxID, 10), "jobs")
}

// Name is the name of an attempt's directory of job key:
// <caller>-<id>-<attempt>; a key that is not job:<caller>:<id> keeps only
// letters, digits, '-' and '_'.
func Name(key string, attempt int64) string {
	name := SafeName(key)
	if caller, id, err := store.ParseJobKey(key); err == nil {
		name = fmt.Sprintf("%d-%d", caller, id)
	}
	return fmt.Sprintf("%s-%d", name, attempt)
}

// Path is the attempt's directory: JobsDir joined with Name.
func Path(dataDir string, ctxID uint64, key string, attempt int64) string {
	return filepath.Join(JobsDir(dataDir, ctxID), Name(key, attempt))
}

// JobOf reads an attempt directory's name back into its job key; false
// for a name that is not <caller>-<id>-<attempt>.
func JobOf(name string) (string, bool) {
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

// SafeName keeps letters, digits, '-' and '_' (other bytes become '_'):
// a name fit for a directory or a cgroup.
func SafeName(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, s)
}
