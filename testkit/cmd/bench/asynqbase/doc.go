// Package asynqbase is the bench command's asynq baseline (issue 38):
// asynq v0.26 on a redis-server started the way the agent's embedded
// store starts it (unix socket only, AOF on), measured the way the agent
// is measured in testkit/e2e's lean benchmarks: noop tasks from 4
// submitters (tasks/s, CPU, Redis commands and keys kept per task) and an
// idle worker process (CPU, its redis-server's CPU, commands/s, RSS).
//
// It is a module of its own, so asynq never enters the main module's
// go.mod nor links into the agent. Run it from this directory:
//
//	go test -run '^$' -bench . -benchtime 2000x
package asynqbase
