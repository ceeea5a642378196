package repo

import "context"

// FailedProviderHook is a stored provider webhook whose processing failed:
// still retried (ProcessedAt nil) or given up after too many attempts
// (ProcessedAt set), with the error of its last attempt.
type FailedProviderHook struct {
	ProviderHook
	LastError string `db:"last_error"`
}

const failedProviderHookColumns = providerHookColumns + `, last_error`

// FailedProviderHooks lists the hooks whose last attempt failed, newest
// first, at most limit: given up ones (processed with an error) and ones
// still pending with an error.
func (q Queries) FailedProviderHooks(ctx context.Context, limit int) ([]FailedProviderHook, error) {
	var out []FailedProviderHook
	return out, q.selectRows(ctx, &out, `SELECT `+failedProviderHookColumns+` FROM provider_hooks
		WHERE last_error IS NOT NULL AND last_error <> ''
		ORDER BY received_at DESC, id DESC LIMIT $1`, limit)
}
