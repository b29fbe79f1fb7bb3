package identity

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/libp2p/go-libp2p/core/crypto"
)

// KeyFileName is the actor key's file name inside the data directory.
const KeyFileName = "actor.key"

// maxKeyFileSize bounds what Load reads; a valid file is 68 bytes.
const maxKeyFileSize = 4096

// Create generates a new identity and writes it to path with mode 0600,
// creating the parent directory (mode 0700) if needed. It never overwrites:
// if path exists, it returns an error wrapping ErrExists.
func Create(path string) (*Identity, error) {
	id, err := Generate()
	if err != nil {
		return nil, fmt.Errorf("identity.Create %s: %w", path, err)
	}
	if err := id.Save(path); err != nil {
		return nil, fmt.Errorf("identity.Create: %w", err)
	}
	return id, nil
}

// Save writes the identity to path (mode 0600, parent created with 0700). Like
// Create it refuses to replace an existing file, with an error wrapping
// ErrExists.
func (i *Identity) Save(path string) error {
	data, err := crypto.MarshalPrivateKey(i.priv)
	if err != nil {
		return fmt.Errorf("identity.Save %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("identity.Save %s: %w", path, err)
	}
	if err := writeExclusive(path, data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("identity.Save %s: %w", path, ErrExists)
		}
		return fmt.Errorf("identity.Save %s: %w", path, err)
	}
	return nil
}

// writeExclusive creates path (failing if it exists), writes data and syncs.
// A partly written file is removed.
func writeExclusive(path string, data []byte) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// Load reads the identity stored at path. A missing file gives an error
// wrapping ErrNotFound; a file that is not an ed25519 key gives ErrCorruptKey
// or ErrUnsupportedKey. Permissions are not checked here: see CheckMode.
func Load(path string) (*Identity, error) {
	data, err := readBounded(path, maxKeyFileSize, ErrCorruptKey)
	if err != nil {
		return nil, fmt.Errorf("identity.Load: %w", err)
	}
	priv, err := crypto.UnmarshalPrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("identity.Load %s: %w: %w", path, ErrCorruptKey, err)
	}
	id, err := FromPrivKey(priv)
	if err != nil {
		return nil, fmt.Errorf("identity.Load %s: %w", path, err)
	}
	return id, nil
}

// readBounded reads a whole small file, mapping "does not exist" to
// ErrNotFound and refusing, with tooBig, files larger than max.
func readBounded(path string, max int64, tooBig error) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: file larger than %d bytes", path, tooBig, max)
	}
	return data, nil
}

// CheckMode reports, as an error wrapping ErrInsecureMode, a key file that
// group or others may read or write. It returns nil for a 0600 (or stricter)
// file and ErrNotFound for a missing one.
func CheckMode(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("identity.CheckMode %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("identity.CheckMode: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("identity.CheckMode %s: %w (is %04o)", path, ErrInsecureMode, perm)
	}
	return nil
}
