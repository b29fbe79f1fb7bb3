//go:build !linux

package executor

import "os"

// outputPipe is os.Pipe where pipe2 is missing (macOS): both ends go
// through the poller, and os/exec makes the write end blocking again for
// the child.
func outputPipe() (r, w *os.File, err error) {
	return os.Pipe()
}
