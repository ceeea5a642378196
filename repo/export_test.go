package repo

import "context"

// ColumnListQueries returns, for every row struct, a query selecting its
// column list, for the external test that runs them on a migrated database.
func ColumnListQueries() map[string]string {
	out := map[string]string{}
	for name, cl := range columnLists {
		out[name] = `SELECT ` + cl.columns + ` FROM ` + cl.from + ` LIMIT 0`
	}
	return out
}

// UnfannedPartitionsQuery is the query UnfannedPartitions runs.
var UnfannedPartitionsQuery = unfannedPartitions

// SetMaxPrepared changes the bound of prepared statement texts until the
// test ends.
func SetMaxPrepared(t interface{ Cleanup(func()) }, n int) {
	old := maxPrepared
	maxPrepared = n
	t.Cleanup(func() { maxPrepared = old })
}

// DueSandboxMessagesQuery is the query LockDueSandboxMessages runs.
var DueSandboxMessagesQuery = dueSandboxMessages

// ShowSetting reads a setting where q runs: in its transaction, if any.
func (q Queries) ShowSetting(ctx context.Context, name string, v *string) error {
	return q.get(ctx, v, `SELECT current_setting($1)`, name)
}
