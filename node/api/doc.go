// Package api is the agent's control API: JSON-RPC 2.0 served on a unix
// socket in the data dir (mode 0600, no token) and on a TCP address (bearer
// token from <data_dir>/api.token required), plus plain HTTP endpoints the
// node registers (/health, /ready, /info, /metrics, events).
//
// Methods live in one Table; the server dispatches from it and rpc.discover
// generates its OpenRPC document from it, so the two cannot disagree.
//
// Wire, over HTTP (socket and TCP): POST /rpc (or POST /, where the seed
// coordinator's clients post) with
// {"jsonrpc":"2.0","id":1,"method":"node.info","params":{...}}; the answer
// is {"jsonrpc":"2.0","id":1,"result":...} or
// {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"..."}}. A
// JSON array is a batch, answered by an array. GET / or /rpc with a
// WebSocket upgrade opens JSON-RPC over WebSocket (ws.go); on TCP the
// token goes in the Authorization header, or ?token= for a browser.
//
// A method may accept several params shapes (RegisterShapes): Hyphae's own
// and the seed coordinator's, told apart by the keys a call uses.
//
// Wire, as a stream (socket only): a connection whose first byte is '{'
// (or whitespace) carries the same request objects back to back, without
// HTTP, as geth's IPC does; each is answered in order by one response
// object and a newline, and the connection stays open for the next. A
// request without "id" is a notification: it runs and is not answered. A
// syntax error, or a request over MaxRequest bytes, is answered with an
// error (id null) and ends the connection; a request of the wrong shape
// is answered with an error and the connection stays usable. Try it with
// `echo '{"jsonrpc":"2.0","id":1,"method":"node.info"}' | nc -NU hyphae.sock`
// (OpenBSD netcat; -N closes its side after the request, and the agent
// then closes the connection once it has answered).
// Client uses streams on the socket, keeping up to four open between
// calls, and falls back to HTTP for an agent that answers in HTTP.
package api
