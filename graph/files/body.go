package files

import (
	"context"
	"fmt"
	"io"

	"github.com/msgsvc/msgsvc/repo"
)

// chunkSize is how much of a file one read takes from the store, and so
// about what a download holds in memory however large the file.
const chunkSize = 256 << 10

// Body reads the bytes of a file Content returned, a chunk at a time, each
// in a statement of its own: a slow client holds no connection between
// chunks.
func (s *Service) Body(ctx context.Context, f *repo.File) io.Reader {
	return &chunks{ctx: ctx, store: s.Store, id: f.ID, size: f.Size}
}

type chunks struct {
	ctx   context.Context
	store Store
	id    string
	off   int
	size  int
	buf   []byte
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.buf) == 0 {
		if c.off >= c.size {
			return 0, io.EOF
		}
		b, err := c.store.FileChunk(c.ctx, c.id, c.off, min(chunkSize, c.size-c.off))
		if err != nil {
			return 0, fmt.Errorf("files: read %s at %d: %w", c.id, c.off, err)
		}
		if len(b) == 0 {
			return 0, fmt.Errorf("files: %s ended at %d of %d bytes: %w", c.id, c.off, c.size, io.ErrUnexpectedEOF)
		}
		c.off += len(b)
		c.buf = b
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
