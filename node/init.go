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
	// Existed: the data dir was initialised already (it has an actor
	// key); nothing was written, Identity is the key found.
	Existed bool
}

// ErrSwarmKeyOnExisting: Init was asked for a swarm key on a data dir that
// is initialised already and has none; it does not add one to its config.
var ErrSwarmKeyOnExisting = errors.New("init: --swarm-key on a data dir initialised without one")

// Init prepares a data dir: the directory (0700), an actor key, a
// commented config and an API token. With swarmKey it also writes
// swarm.key and points the config at it. A data dir that has an actor key
// already is left as it is, whatever else it holds (`hyphae init && hyphae
// run` on every start): Existed, and the key found. An existing key is
// never overwritten, nor are the token and config beside it.
func Init(dir string, swarmKey bool) (*InitResult, error) {
	p := PathsFor(dir)
	if res, err := initialised(p, swarmKey); res != nil || err != nil {
		return res, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	id, err := identity.Create(p.Key)
	if errors.Is(err, identity.ErrExists) { // another init made it meanwhile
		if res, err := initialised(p, swarmKey); res != nil || err != nil {
			return res, err
		}
	}
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
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

// initialised is Init's result for p's data dir when it has an actor key
// (nil, nil when it has none): the key loaded, nothing written. A key that
// does not load is an error, never replaced; so is swarmKey when the data
// dir has no swarm.key (its config is not edited).
func initialised(p Paths, swarmKey bool) (*InitResult, error) {
	if _, err := os.Lstat(p.Key); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	id, err := identity.Load(p.Key)
	if err != nil {
		return nil, fmt.Errorf("init: the data dir %s has an actor key that does not load (it is left as it is): %w", p.Dir, err)
	}
	res := &InitResult{Paths: p, Identity: id, Existed: true}
	if swarmKey {
		sk := filepath.Join(p.Dir, "swarm.key")
		if _, err := os.Stat(sk); err != nil {
			return nil, fmt.Errorf("%w: %s (peer ID %s) is left as it is; to make it private, put a swarm key there and set overlay.swarm_key in %s",
				ErrSwarmKeyOnExisting, p.Dir, id.PeerID(), p.Config)
		}
		res.SwarmKey = sk
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
