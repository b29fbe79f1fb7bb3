// Package store is Hyphae's only door to Redis: it saves, loads, lists and
// deletes the contract's objects (docs/design.md, "Redis layout") and runs the atomic
// multi-key operations as Lua scripts.
//
// DB 0 is node-global (actors, the context registry, the peer table, node
// metadata). DB N belongs to context N. Key strings are built only by the
// helpers in keys.go (and the *_keys.go files beside it).
//
// Types: one per concern, sharing one connection (core, store.go): Jobs
// (job records), Queues (claims, leases, dead letters), Bus (messages,
// outbox, inbound, awaits, replay), Flows, Timing (timers, schedules),
// Events (events, triggers, waits), Registry (contexts, actors, runners,
// peers) and Logs (concerns.go). Store holds them as fields and keeps what
// the wiring does at start and stop; each component declares the
// interfaces it uses of them, so none takes *Store.
//
// Scripts: one per atomic operation, each declared beside the Go method
// that runs it, with its KEYS and ARGV documented, and made by newScript
// (scripts.go), which records it so that a test loads every script into a
// real Redis. A script's body is plain Lua that reads top to bottom; the
// Lua functions several scripts share (fence, announceEnd, appendLines,
// lease/take/release, hsetjson) are in lua_lib.go, and those generated
// from the model's rules — the job and message lifecycles and the role
// rule (moves, terminal, startable, messageMoves, hasRole) — in
// lua_rules.go, so Go and Lua cannot disagree.
package store
