package config

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// emptySwarmKey is the line `hyphae init` writes for a public network:
// `swarm_key: ""`, with its indentation and any comment after it.
var emptySwarmKey = regexp.MustCompile(`(?m)^(\s+swarm_key:\s*)""`)

// NameSwarmKey points the config file at the swarm key in keyPath, when
// the file holds the one `swarm_key: ""` line init writes; it reports
// whether it did. A file that names a key already, or that a person
// shaped differently, is left as it is (false): its owner edits it.
// Comments and the rest of the file are kept byte for byte.
func NameSwarmKey(file, keyPath string) (bool, error) {
	if file == "" {
		return false, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false, fmt.Errorf("config.NameSwarmKey: %w", err)
	}
	if len(emptySwarmKey.FindAllIndex(b, -1)) != 1 {
		return false, nil
	}
	out := emptySwarmKey.ReplaceAll(b, []byte("${1}"+escapeDollar(strconv.Quote(keyPath))))
	fi, err := os.Stat(file)
	if err != nil {
		return false, fmt.Errorf("config.NameSwarmKey: %w", err)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, out, fi.Mode().Perm()); err != nil {
		return false, fmt.Errorf("config.NameSwarmKey: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		_ = os.Remove(tmp)
		return false, fmt.Errorf("config.NameSwarmKey: %w", err)
	}
	return true, nil
}

// escapeDollar keeps a $ in a path from reading as a group reference.
func escapeDollar(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("$"), []byte("$$")))
}
