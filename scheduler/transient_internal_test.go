package scheduler

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
)

func TestTransient(t *testing.T) {
	for err, want := range map[error]bool{
		fmt.Errorf("load: %w", io.EOF):                     true,
		fmt.Errorf("dial: %w", syscall.ECONNREFUSED):       true,
		errors.New("redis: connection pool timeout"):       true,
		errors.New("LOADING Redis is loading the dataset"): true,
		errStale: true,
		errors.New(`flow 3: job "x" needs job id 9, not in`): false,
	} {
		if got := transient(err); got != want {
			t.Errorf("transient(%v) = %v, want %v", err, got, want)
		}
	}
}
