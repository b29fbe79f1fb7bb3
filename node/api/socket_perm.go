package api

import (
	"fmt"
	"os"
	"path/filepath"
)

// NoGroup: the socket is not shared with a group (mode 0600).
const NoGroup = -1

// Modes of a socket shared with a group, and of its directory: members
// may connect (a unix socket needs write permission) and reach it, and
// nothing else in the directory opens to them (the key, the token and the
// job directories are the owner's alone).
const (
	sharedSocketMode = 0o660
	sharedDirMode    = 0o750
)

// shareDir gives the socket's directory to group gid (mode 0750) before
// the socket exists, so members can reach it; nothing with NoGroup.
func shareDir(path string, gid int) error {
	if gid == NoGroup {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.Chown(dir, -1, gid); err != nil {
		return fmt.Errorf("api: give %s to group %d: %w", dir, gid, err)
	}
	if err := os.Chmod(dir, sharedDirMode); err != nil {
		return fmt.Errorf("api: chmod %s: %w", dir, err)
	}
	return nil
}

// setSocketPerm makes the socket the owner's (0600) or shares it with
// group gid (0660).
func setSocketPerm(path string, gid int) error {
	mode := os.FileMode(0o600)
	if gid != NoGroup {
		if err := os.Chown(path, -1, gid); err != nil {
			return fmt.Errorf("api: give %s to group %d: %w", path, gid, err)
		}
		mode = sharedSocketMode
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("api: chmod %s: %w", path, err)
	}
	return nil
}
