package repo

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
