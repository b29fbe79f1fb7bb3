package executor

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxResultFile bounds how much of $HYPHAE_RESULT is read.
const maxResultFile = 1 << 20

// Keys the runner adds to every result (they win over the file's).
const (
	keyStdout   = "stdout"
	keyExitCode = "exit_code"
	// keyWarnings is added when the result file had lines that are not
	// key=value: how many, and the first few.
	keyWarnings = "result_warnings"
	// keyLimitWarnings is added when a job's memory_mb or cpu is not
	// enforced on this runner, or when the kernel killed one of its
	// processes for its memory and it still succeeded.
	keyLimitWarnings = "limit_warnings"
)

func resultPath(dir string) string { return filepath.Join(dir, "result") }

// parseResult reads key=value lines. Blank lines and lines starting with
// '#' are skipped; a line without '=' or with an empty key is bad: it is
// ignored and described in bad. Keys are trimmed of spaces, values kept as
// written (a trailing \r dropped); a repeated key keeps its last value.
func parseResult(data []byte) (kv map[string]string, bad []string) {
	kv = map[string]string{}
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSuffix(string(raw), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			bad = append(bad, fmt.Sprintf("line %d: %s", i+1, strconv.Quote(clip(line, 60))))
			continue
		}
		kv[k] = v
	}
	return kv, bad
}

// readResult parses the result file in dir; a missing file is no result.
func readResult(dir string) (map[string]string, []string) {
	f, err := os.Open(resultPath(dir))
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]string{}, nil
		}
		return map[string]string{}, []string{"result file: " + err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxResultFile+1))
	var notes []string
	if err != nil {
		notes = append(notes, "result file: "+err.Error())
	}
	if len(data) > maxResultFile {
		data = data[:bytes.LastIndexByte(data[:maxResultFile], '\n')+1]
		notes = append(notes, fmt.Sprintf("result file larger than %d bytes: the rest is ignored", maxResultFile))
	}
	kv, bad := parseResult(data)
	return kv, append(notes, bad...)
}

// describeBad summarises ignored result lines for keyWarnings.
func describeBad(bad []string) string {
	const show = 3
	s := fmt.Sprintf("%d bad result line(s) ignored: %s", len(bad), strings.Join(bad[:min(show, len(bad))], "; "))
	if len(bad) > show {
		s += "; …"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
