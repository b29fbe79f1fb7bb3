package testredis

import "syscall"

// procAttr makes a redis-server die with the test process that started
// it, even when that process is killed (SIGKILL, SIGQUIT from a timeout):
// an orphan would keep its port, its directory and any file descriptor it
// inherited (a benchmark lock, say).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
