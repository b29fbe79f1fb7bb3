package files

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// cloneInto makes dst share src's blocks (FICLONE, a reflink) where the
// file system can (XFS, btrfs, bcachefs): placing an input costs no data
// I/O. The blocks are copy-on-write, so a job that changes its input
// changes its own copy and never the store's blob (which a hard link
// would). It returns dst's size, and false where src is not a file or
// the file system cannot clone (ext4, tmpfs, another file system): the
// caller copies instead.
func cloneInto(dst *os.File, src io.Reader) (int64, bool) {
	in, ok := src.(*os.File)
	if !ok {
		return 0, false
	}
	inConn, err := in.SyscallConn()
	if err != nil {
		return 0, false
	}
	outConn, err := dst.SyscallConn()
	if err != nil {
		return 0, false
	}
	var cloneErr, inErr error
	err = outConn.Control(func(out uintptr) {
		inErr = inConn.Control(func(in uintptr) { cloneErr = unix.IoctlFileClone(int(out), int(in)) })
	})
	if err != nil || inErr != nil || cloneErr != nil {
		return 0, false
	}
	fi, err := dst.Stat()
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}
