// Package api is the agent's control API: JSON-RPC 2.0 over HTTP, served on
// a unix socket in the data dir (mode 0600, no token) and on a TCP address
// (bearer token from <data_dir>/api.token required), plus plain HTTP
// endpoints the node registers (/health, /ready, /info, /metrics, events).
//
// Methods live in one Table; the server dispatches from it and rpc.discover
// generates its OpenRPC document from it, so the two cannot disagree.
//
// Wire: POST /rpc with {"jsonrpc":"2.0","id":1,"method":"node.info",
// "params":{...}}; the answer is {"jsonrpc":"2.0","id":1,"result":...} or
// {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"..."}}.
package api
