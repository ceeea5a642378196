package rest

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// uploadFile is POST /v1/files: multipart/form-data with a file field, or a
// JSON body with filename and content_base64.
func (s *Server) uploadFile(r *http.Request) (int, any, error) {
	var in model.UploadFileInput
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == "multipart/form-data" {
		if err := readMultipartFile(r, &in); err != nil {
			return 0, nil, err
		}
	} else if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().UploadFile(r.Context(), in)
	return http.StatusCreated, out, err
}

// emailImage is GET /v1/email/images: a remote image of an inbound mail,
// fetched by msgsvc through a signed link (MSGSVC_EMAIL_REMOTE_IMAGES=proxy).
func (s *Server) emailImage(w http.ResponseWriter, r *http.Request) {
	if err := checkEdge(r); err != nil {
		writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	img, err := s.Resolver.Files.Image(r.Context(), q.Get("url"), q.Get("expires"), q.Get("signature"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeLinked(w, img.ContentType, len(img.Content), bytes.NewReader(img.Content), map[string]string{"Content-Security-Policy": "default-src 'none'; sandbox"})
}

// refetchFile is POST /v1/files/{id}/refetch: provider media whose
// download failed is fetched again.
func (s *Server) refetchFile(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Mutation().RefetchFile(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

// readMultipartFile reads the part named file, streaming: at most one byte
// past the size limit is read, so the resolver can refuse what is too big.
func readMultipartFile(r *http.Request, in *model.UploadFileInput) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return apierr.New(apierr.InvalidRequest, "The multipart body cannot be read: %v.", err)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return apierr.New(apierr.InvalidRequest, "The multipart body needs a part named file.")
		}
		if err != nil {
			return apierr.New(apierr.InvalidRequest, "The multipart body cannot be read: %v.", err)
		}
		if part.FormName() != "file" {
			continue
		}
		name := part.FileName()
		if !storable(name) {
			return apierr.New(apierr.InvalidRequest, "The file part's filename holds a NUL or bytes that are not UTF-8.")
		}
		in.Filename = &name
		if ct := part.Header.Get("Content-Type"); !storable(ct) {
			return apierr.New(apierr.InvalidRequest, "The file part's Content-Type holds a NUL or bytes that are not UTF-8.")
		} else if ct != "" && ct != "application/octet-stream" {
			in.ContentType = &ct
		}
		content, err := io.ReadAll(io.LimitReader(part, files.MaxFileSize+1))
		if timedOut(err) {
			return bodyUnread(err)
		}
		if err != nil {
			return apierr.New(apierr.InvalidRequest, "The multipart body cannot be read: %v.", err)
		}
		in.Content = content
		return nil
	}
}

// fileContent serves the bytes behind a signed attachment link; the
// signature stands in for an API key and lasts one hour.
func (s *Server) fileContent(w http.ResponseWriter, r *http.Request) {
	if err := checkEdge(r); err != nil {
		writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	f, err := s.Resolver.Files.Content(r.Context(), chi.URLParam(r, "id"), q.Get("expires"), q.Get("signature"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	body := s.Resolver.Files.Body(r.Context(), f)
	extra := map[string]string{"Content-Disposition": mime.FormatMediaType("attachment", map[string]string{"filename": f.Filename})}
	if strings.HasPrefix(f.ContentType, "text/html") || f.ContentType == "image/svg+xml" {
		// Never let an uploaded page run script on the API's origin.
		extra["Content-Security-Policy"] = "sandbox"
	}
	writeLinked(w, f.ContentType, f.Size, body, extra)
}

// writeLinked answers the size bytes of body behind a signed link: never
// sniffed, cached privately for the link's hour. A body that fails part way
// ends the connection short of its Content-Length, which clients see.
func writeLinked(w http.ResponseWriter, contentType string, size int, body io.Reader, extra map[string]string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(size))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=3600")
	for k, v := range extra {
		h.Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	src := &failedRead{r: body}
	if _, err := io.Copy(w, src); src.err != nil {
		slog.Warn("linked content not sent whole: its store failed", "err", src.err)
	} else if err != nil {
		slog.Debug("write response; the client went away", "err", err)
	}
}

// failedRead remembers the error of its reader, to tell it from the
// client's going away.
type failedRead struct {
	r   io.Reader
	err error
}

func (f *failedRead) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF {
		f.err = err
	}
	return n, err
}
