package embedredis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockName is the file whose flock marks a data dir's Redis as owned.
const lockName = "embedredis.lock"

// acquireLock takes an exclusive, non-blocking flock on dir/embedredis.lock
// and writes our pid into it. The kernel drops the lock when the process
// dies; the descriptor is close-on-exec, so the child never holds it.
func acquireLock(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		holder := readHolder(f)
		f.Close()
		return nil, fmt.Errorf("data dir %s is in use: another embedded Redis "+
			"(agent pid %s) holds %s; stop that agent or use another data dir",
			filepath.Dir(dir), holder, path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := writePid(f); err != nil {
		releaseLock(f)
		return nil, fmt.Errorf("write lock %s: %w", path, err)
	}
	return f, nil
}

func writePid(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

func readHolder(f *os.File) string {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	if s := strings.TrimSpace(string(buf[:n])); s != "" {
		return s
	}
	return "unknown"
}

// releaseLock drops the flock. The file stays: removing it would race with
// a concurrent Start that already opened it.
func releaseLock(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	_ = f.Close()
}
