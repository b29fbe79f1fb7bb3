package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/node/config"
)

// InitResult says what Init created.
type InitResult struct {
	Paths    Paths
	Identity *identity.Identity
	Created  []string // files written
	SwarmKey string   // path of the swarm key, when one was generated
}

// Init prepares a data dir: the directory (0700), an actor key (never
// overwritten: an existing key is an error), a commented config and an API
// token. With swarmKey it also writes swarm.key and points the config at it.
func Init(dir string, swarmKey bool) (*InitResult, error) {
	p := PathsFor(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	id, err := identity.Create(p.Key)
	if err != nil {
		return nil, fmt.Errorf("init: %w (the data dir %s is already initialised; `hyphae id --data-dir %s` shows it)", err, dir, dir)
	}
	res := &InitResult{Paths: p, Identity: id, Created: []string{p.Key}}
	if err := writeNew(p.Token, []byte(newToken()+"\n")); err == nil {
		res.Created = append(res.Created, p.Token)
	} else if !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("init: token: %w", err)
	}
	cfg := config.Example
	if swarmKey {
		res.SwarmKey = filepath.Join(dir, "swarm.key")
		if err := writeNew(res.SwarmKey, identity.GenerateSwarmKey()); err != nil {
			return nil, fmt.Errorf("init: swarm key: %w", err)
		}
		res.Created = append(res.Created, res.SwarmKey)
		cfg = strings.Replace(cfg, `swarm_key: ""`, fmt.Sprintf("swarm_key: %q", res.SwarmKey), 1)
	}
	if err := writeNew(p.Config, []byte(cfg)); err == nil {
		res.Created = append(res.Created, p.Config)
	} else if !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("init: config: %w", err)
	}
	return res, nil
}

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeNew creates path with mode 0600, failing if it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadToken reads the API token of a data dir.
func ReadToken(dir string) (string, error) {
	b, err := os.ReadFile(PathsFor(dir).Token)
	if err != nil {
		return "", fmt.Errorf("read api token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
