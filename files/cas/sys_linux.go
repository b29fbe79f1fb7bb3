package cas

import (
	"os"

	"golang.org/x/sys/unix"
)

// openPartFile opens a part's bytes for writing past the page cache
// (O_DIRECT) where the file system allows it, and through it otherwise.
// Direct writes need no page-cache page per byte received (on a virtual
// machine whose free memory goes back to the host, taking such pages
// again costs more CPU than the copy itself) and leave little for the
// sync before the part is named.
func openPartFile(path string, tryDirect bool) (f *os.File, direct bool, err error) {
	if tryDirect {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_DIRECT, 0o600)
		if err == nil {
			return f, true, nil
		}
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	return f, false, err
}

// endDirect turns direct I/O off on f, for a write that does not suit it.
func endDirect(f *os.File) error {
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(f.Fd(), unix.F_SETFL, fl&^unix.O_DIRECT)
	}
	return err
}

// startWriteback asks the kernel to start writing [off, off+n) of f to
// disk without waiting, so that the sync before a part is named waits
// for the tail only, not for the whole file (parts written through the
// page cache).
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// syncAll makes the files at paths and the folders that name them
// durable with one syncfs of the file system that holds dir, instead of
// a sync of each.
func syncAll(dir string, _ []string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = unix.Syncfs(int(d.Fd()))
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
