package files

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
)

// chunkStore serves content by chunks and counts the largest one asked.
type chunkStore struct {
	oneFile
	content []byte
	largest int
}

func (s *chunkStore) FileChunk(_ context.Context, _ string, off, n int) ([]byte, error) {
	s.largest = max(s.largest, n)
	if off >= len(s.content) {
		return nil, nil
	}
	return s.content[off:min(off+n, len(s.content))], nil
}

// TestBodyReadsByChunks: a file's bytes come whole, never more than a
// chunk per read of the store; a file shorter than its size is an error.
func TestBodyReadsByChunks(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789abcdef"), (3*chunkSize+100)/16)
	store := &chunkStore{content: content}
	svc := &Service{Store: store}
	got, err := io.ReadAll(svc.Body(context.Background(), &repo.File{ID: "file_1", Size: len(content)}))
	if err != nil || !bytes.Equal(got, content) || store.largest > chunkSize {
		t.Fatalf("read %d of %d bytes (%v), largest chunk %d", len(got), len(content), err, store.largest)
	}
	_, err = io.ReadAll(svc.Body(context.Background(), &repo.File{ID: "file_1", Size: len(content) + 1}))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a file shorter than its size: %v", err)
	}
}
