package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// tmpDirs get a private tmpfs each (those that exist).
var tmpDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// setupMounts builds the job's mount tree (package doc, step 1).
func setupMounts(sp *Spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	job, err := cloneTree(sp.Dir)
	if err != nil {
		return fmt.Errorf("clone the job directory: %w", err)
	}
	defer unix.Close(job)
	exposed := map[string]int{}
	for _, st := range sp.Steps {
		if st.Kind == stepExpose {
			if fd, err := cloneTree(st.Target); err == nil {
				exposed[st.Target] = fd
				defer unix.Close(fd)
			}
		}
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro); err != nil {
		return fmt.Errorf("make the host's files read-only: %w", err)
	}
	for _, d := range tmpDirs {
		if isDir(d) {
			if err := tmpfs(d, "1777"); err != nil {
				return err
			}
		}
	}
	if err := maskAndExpose(sp, exposed); err != nil {
		return err
	}
	if err := place(job, sp.Dir, false); err != nil {
		return fmt.Errorf("put back the job directory: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return os.Chdir(sp.Dir)
}

// maskAndExpose applies the plan's masks, then its exposures, then makes
// the masking tmpfs read-only (after the mount points under them exist).
func maskAndExpose(sp *Spec, exposed map[string]int) error {
	var masks []string
	for _, st := range sp.Steps {
		switch st.Kind {
		case stepTmpfs:
			if err := mkdirs(st.Target); err != nil {
				return err
			}
			if err := tmpfs(st.Target, "0755"); err != nil {
				return err
			}
			masks = append(masks, st.Target)
		case stepNull:
			if err := unix.Mount("/dev/null", st.Target, "", unix.MS_BIND, ""); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("mask %s: %w", st.Target, err)
			}
		}
	}
	if err := mkdirs(sp.Dir); err != nil {
		return err
	}
	for t, fd := range exposed {
		if err := mkdirs(t); err == nil {
			_ = place(fd, t, true) // best effort: a missing interpreter fails the job itself
		}
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	for _, m := range masks {
		if err := unix.MountSetattr(unix.AT_FDCWD, m, 0, ro); err != nil {
			return fmt.Errorf("make %s read-only: %w", m, err)
		}
	}
	return nil
}

// cloneTree detaches a copy of the mount at dir (non-recursive).
func cloneTree(dir string) (int, error) {
	return unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
}

// place attaches a detached tree at target, read-only when ro.
func place(fd int, target string, ro bool) error {
	if ro {
		a := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, a); err != nil {
			return err
		}
	}
	return unix.MoveMount(fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

func tmpfs(dir, mode string) error {
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode="+mode); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", dir, err)
	}
	return nil
}

// mkdirs creates dir and its missing parents (on a tmpfs of the plan; on
// the read-only host they exist already).
func mkdirs(dir string) error {
	if isDir(dir) {
		return nil
	}
	if err := os.MkdirAll(filepath.Clean(dir), 0o755); err != nil {
		return fmt.Errorf("make mount point %s: %w", dir, err)
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// loopbackUp sets lo up in a fresh network namespace, so network none
// still has 127.0.0.1.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
