package executor

import "github.com/hyphae-run/hyphae/context/jobdir"

// JobsDir is <dataDir>/contexts/<N>/jobs (context/jobdir holds the layout).
func JobsDir(dataDir string, ctxID uint64) string { return jobdir.JobsDir(dataDir, ctxID) }

// jobDirName is an attempt's directory name (jobdir.Name).
func jobDirName(key string, attempt int64) string { return jobdir.Name(key, attempt) }
