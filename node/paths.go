package node

import "path/filepath"

// Paths are the files of a data dir.
type Paths struct {
	Dir    string
	Key    string // actor.key: the ed25519 actor key (0600)
	Token  string // api.token: bearer token for the TCP API (0600)
	Config string // hyphae.yaml: config read by `hyphae run` when present
	Socket string // hyphae.sock: the local API (0600)
	Redis  string // redis/: the embedded Redis' files
	Jobs   string // contexts/: job working directories
}

// PathsFor lays out dir.
func PathsFor(dir string) Paths {
	return Paths{
		Dir:    dir,
		Key:    filepath.Join(dir, "actor.key"),
		Token:  filepath.Join(dir, "api.token"),
		Config: filepath.Join(dir, "hyphae.yaml"),
		Socket: filepath.Join(dir, "hyphae.sock"),
		Redis:  filepath.Join(dir, "redis"),
		Jobs:   filepath.Join(dir, "contexts"),
	}
}
