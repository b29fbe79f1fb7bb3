package cas

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing [off, off+n) of f to
// disk without waiting, so that the sync before a part is named waits
// for the tail only, not for the whole file.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
