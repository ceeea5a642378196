package send

// SetSandboxBatch changes how many messages a sandbox pass takes per
// transaction until the test ends.
func SetSandboxBatch(t interface{ Cleanup(func()) }, n int) {
	old := sandboxBatch
	sandboxBatch = n
	t.Cleanup(func() { sandboxBatch = old })
}
