package files

import "fmt"

// Defaults of files.max_file_mb and files.max_job_mb.
const (
	DefaultMaxFileMB = 4096
	DefaultMaxJobMB  = 16384
)

// Limits bounds the files of one job. A zero field takes its default.
type Limits struct {
	MaxFileBytes int64 // one file
	MaxJobBytes  int64 // a job's files together
}

// LimitsMB returns the limits of files.max_file_mb and files.max_job_mb
// (0 takes the default).
func LimitsMB(fileMB, jobMB int64) Limits {
	return Limits{MaxFileBytes: fileMB << 20, MaxJobBytes: jobMB << 20}
}

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileMB << 20
	}
	if l.MaxJobBytes <= 0 {
		l.MaxJobBytes = DefaultMaxJobMB << 20
	}
	return l
}

// tally checks sizes against the limits as files are added.
type tally struct {
	lim   Limits
	total int64
}

func newTally(lim Limits) *tally { return &tally{lim: lim.withDefaults()} }

// add counts a file of size bytes at path, or says which limit it passes.
func (t *tally) add(path string, size int64) error {
	if size > t.lim.MaxFileBytes {
		return fmt.Errorf("%w: %s is %s, the limit is %s", ErrFileTooLarge, path, mib(size), mib(t.lim.MaxFileBytes))
	}
	t.total += size
	if t.total > t.lim.MaxJobBytes {
		return fmt.Errorf("%w: %s brings them to %s, the limit is %s", ErrJobTooLarge, path, mib(t.total), mib(t.lim.MaxJobBytes))
	}
	return nil
}

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
