package model

import "slices"

// Role is an actor's role in a context.
type Role string

// Roles, weakest first.
const (
	RoleReader   Role = "reader"
	RoleExecutor Role = "executor"
	RoleAdmin    Role = "admin"
)

// grantedBy is the role rule, the one table that Context.Has and the
// store's Lua role check (generated from GrantedBy) are both made from: an
// actor holds a role when it is on the list of any role that grants it.
// Admins may do everything; executors may also read.
var grantedBy = map[Role][]Role{
	RoleReader:   {RoleAdmin, RoleExecutor, RoleReader},
	RoleExecutor: {RoleAdmin, RoleExecutor},
	RoleAdmin:    {RoleAdmin},
}

// Roles returns the known roles, weakest first.
func Roles() []Role { return []Role{RoleReader, RoleExecutor, RoleAdmin} }

// GrantedBy returns the roles whose lists grant role (a copy, strongest
// first); none for an unknown role.
func GrantedBy(role Role) []Role { return slices.Clone(grantedBy[role]) }

// ListField is the context hash field that lists the actors given role r
// ("admins", "executors", "readers"); "" for an unknown role.
func (r Role) ListField() string {
	switch r {
	case RoleAdmin:
		return "admins"
	case RoleExecutor:
		return "executors"
	case RoleReader:
		return "readers"
	}
	return ""
}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleReader || r == RoleExecutor || r == RoleAdmin }

// Has reports whether actor holds role in c: it is on the list of a role
// that grants it (grantedBy).
func (c *Context) Has(actor uint64, role Role) bool {
	for _, g := range grantedBy[role] {
		if slices.Contains(*c.list(g), actor) {
			return true
		}
	}
	return false
}

// Grant adds actor to role's list; it reports whether anything changed.
func (c *Context) Grant(actor uint64, role Role) bool {
	l := c.list(role)
	if l == nil || slices.Contains(*l, actor) {
		return false
	}
	*l = append(*l, actor)
	return true
}

// Revoke removes actor from role's list; it reports whether anything changed.
func (c *Context) Revoke(actor uint64, role Role) bool {
	l := c.list(role)
	if l == nil {
		return false
	}
	i := slices.Index(*l, actor)
	if i < 0 {
		return false
	}
	*l = append((*l)[:i:i], (*l)[i+1:]...)
	return true
}

// list is the list of actors given role in c; nil for an unknown role.
func (c *Context) list(role Role) *[]uint64 {
	switch role {
	case RoleAdmin:
		return &c.Admins
	case RoleExecutor:
		return &c.Executors
	case RoleReader:
		return &c.Readers
	}
	return nil
}
