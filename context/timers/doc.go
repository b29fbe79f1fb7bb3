// Package timers runs the agent's timers: per context, one goroutine that
// sleeps until the earliest due time kept in Redis, fires what is due and
// sleeps again. Redis is the source of truth (the timers ZSET of each
// context DB, and whatever other Firers keep); the goroutine holds nothing
// a restart would lose. A new earliest entry is announced on
// store.TimersChannel, which wakes the context's goroutine; a lost
// announcement costs at most MaxSleep of lateness.
package timers
