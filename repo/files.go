package repo

import (
	"context"
	"errors"
	"time"
)

// File is an uploaded or inline file; MessageID is set once a message
// attaches it.
type File struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	Livemode    bool      `db:"livemode"`
	Filename    string    `db:"filename"`
	ContentType string    `db:"content_type"`
	Size        int       `db:"size"`
	Content     []byte    `db:"content"`
	MessageID   *string   `db:"message_id"`
	CreatedAt   time.Time `db:"created_at"`
	// ProviderMediaID is the WhatsApp media id of inbound media, to fetch
	// it again.
	ProviderMediaID *string `db:"provider_media_id"`
}

const fileColumns = `id, workspace_id, livemode, filename, content_type, size, content, message_id, created_at, provider_media_id`

// InsertFile stores a file with its bytes.
func (q Queries) InsertFile(ctx context.Context, f *File) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO files (id, workspace_id, livemode, filename,
		content_type, size, content, message_id, created_at, provider_media_id) VALUES (:id, :workspace_id, :livemode,
		:filename, :content_type, :size, :content, :message_id, :created_at, :provider_media_id)`, f)
	return err
}

// FilesByID returns the scope's files among the ids, without their bytes.
func (q Queries) FilesByID(ctx context.Context, s Scope, ids []string) ([]File, error) {
	var out []File
	return out, q.selectRows(ctx, &out, `SELECT id, workspace_id, livemode, filename, content_type,
		size, ''::bytea AS content, message_id, created_at, provider_media_id FROM files
		WHERE workspace_id = $1 AND livemode = $2 AND id = ANY($3)`, s.WorkspaceID, s.Livemode, array(ids))
}

// AttachFile marks a file as used by a message; it reports false when
// another message already has it. The row lock makes concurrent sends of one
// file agree on a single winner.
func (q Queries) AttachFile(ctx context.Context, s Scope, id, messageID string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE files SET message_id = $4
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3 AND message_id IS NULL`,
		s.WorkspaceID, s.Livemode, id, messageID)
	return n == 1, err
}

// FileByID returns one file without its bytes (FileChunk reads them),
// whoever owns it: the caller has checked a signed link instead of a key.
func (q Queries) FileByID(ctx context.Context, id string) (*File, error) {
	return one[File](ctx, q, `SELECT id, workspace_id, livemode, filename, content_type, size,
		''::bytea AS content, message_id, created_at, provider_media_id FROM files WHERE id = $1`, id)
}

// FileChunk returns at most n bytes of a file's content from offset (0 is
// the first byte); fewer at its end, none past it or for no such file.
func (q Queries) FileChunk(ctx context.Context, id string, offset, n int) ([]byte, error) {
	var chunk []byte
	err := q.get(ctx, &chunk, `SELECT substring(content FROM $2 FOR $3) FROM files WHERE id = $1`, id, offset+1, n)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return chunk, err
}

// StoredMedia is the newest file of the scope downloaded from the provider
// with that media id, with its bytes (a failed download has none);
// ErrNotFound when there is none. A media id is downloaded once: later
// messages and retried webhooks reuse the bytes.
func (q Queries) StoredMedia(ctx context.Context, s Scope, mediaID string) (*File, error) {
	return one[File](ctx, q, `SELECT `+fileColumns+` FROM files
		WHERE workspace_id = $1 AND livemode = $2 AND provider_media_id = $3 AND size > 0
		ORDER BY created_at DESC LIMIT 1`, s.WorkspaceID, s.Livemode, mediaID)
}
