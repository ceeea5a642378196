package rest_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// upload posts a multipart file with a fixture key.
func upload(t *testing.T, api *resttest.API, key, filename, contentType string, content []byte) *resttest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	header := map[string][]string{"Content-Disposition": {`form-data; name="file"; filename="` + filename + `"`}}
	if contentType != "" {
		header["Content-Type"] = []string{contentType}
	}
	part, err := mw.CreatePart(header)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(content)
	_ = mw.Close()
	return api.Do("POST", "/v1/files", key, body.Bytes(), "Content-Type", mw.FormDataContentType())
}

// fetch GETs a signed link without a key.
func fetch(t *testing.T, api *resttest.API, url string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(api.HTTP.URL + url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func TestFileUploadLimits(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	f := api.Want(upload(t, api, "msg_write", "photo.png", "image/png", png), 201, "").Data()
	if !strings.HasPrefix(f["id"].(string), "file_") || f["object"] != "file" || f["filename"] != "photo.png" ||
		f["content_type"] != "image/png" || f["size"] != float64(len(png)) || f["created_at"] != "2026-10-15T12:00:00.000Z" {
		t.Errorf("uploaded file %v", f)
	}
	j := api.Want(api.Do("POST", "/v1/files", "test_all", map[string]any{"filename": "notes.txt",
		"content_base64": base64.StdEncoding.EncodeToString([]byte("hello"))}), 201, "").Data()
	if j["content_type"] != "text/plain" || j["size"] != float64(5) {
		t.Errorf("JSON upload %v", j)
	}
	limit := 10 << 20
	api.Want(upload(t, api, "test_all", "max.bin.pdf", "application/pdf", make([]byte, limit)), 201, "")
	cases := []struct {
		name, filename, ctype string
		content               []byte
		code                  string
	}{
		{"empty", "a.txt", "text/plain", nil, "file_rejected"},
		{"over 10 MB", "big.pdf", "application/pdf", make([]byte, limit+1), "file_rejected"},
		{"executable by name", "setup.exe", "", []byte("hello"), "file_rejected"},
		{"script by name", "run.sh", "text/plain", []byte("echo"), "file_rejected"},
		{"executable by type", "a.dat", "application/x-msdownload", []byte("hello"), "file_rejected"},
		{"executable in disguise", "cat.png", "image/png", []byte("MZ\x90\x00\x03"), "file_rejected"},
		{"script in disguise", "notes.txt", "text/plain", []byte("#!/bin/sh\nrm -rf /"), "file_rejected"},
	}
	for _, c := range cases {
		r := upload(t, api, "test_all", c.filename, c.ctype, c.content)
		if r.Status != 400 || r.Code() != c.code {
			t.Errorf("%s: got %d %q, want 400 %q", c.name, r.Status, r.Code(), c.code)
		}
	}
	api.Want(api.Do("POST", "/v1/files", "test_all", map[string]any{"filename": "a.txt", "content_base64": "@@"}), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/files", "test_all", map[string]any{"content_base64": "aGk="}), 400, "invalid_request")
	api.Want(upload(t, api, "msg_read", "photo.png", "image/png", png), 403, "insufficient_scope")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("other", "x")
	_ = mw.Close()
	api.Want(api.Do("POST", "/v1/files", "test_all", body.Bytes(), "Content-Type", mw.FormDataContentType()), 400, "invalid_request")
}

func TestAttachmentsAndSignedLinks(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	web := startConv(api, map[string]any{"channel": "website", "from": "visitor-files"})
	pdf := []byte("%PDF-1.4 hello")
	id := api.Want(upload(t, api, "test_all", "invoice.pdf", "application/pdf", pdf), 201, "").Data()["id"].(string)
	msg := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web, "text": "your invoice",
		"attachments": []any{map[string]any{"file_id": id}, map[string]any{"filename": "note.txt", "content_base64": base64.StdEncoding.EncodeToString([]byte("inline"))}}}), 201, "").Data()
	atts := msg["attachments"].([]any)
	if len(atts) != 2 {
		t.Fatalf("attachments %v", atts)
	}
	first := atts[0].(map[string]any)
	if first["id"] != id || first["filename"] != "invoice.pdf" || first["content_type"] != "application/pdf" || first["size"] != float64(len(pdf)) {
		t.Errorf("attachment %v", first)
	}
	status, header, got := fetch(t, api, first["url"].(string))
	if status != 200 || !bytes.Equal(got, pdf) || header.Get("Content-Type") != "application/pdf" {
		t.Errorf("download: %d %q %s", status, header.Get("Content-Type"), got)
	}
	status, _, got = fetch(t, api, atts[1].(map[string]any)["url"].(string))
	if status != 200 || string(got) != "inline" {
		t.Errorf("inline download: %d %s", status, got)
	}
	// Tampered or expired links stop working; reading the message signs anew.
	url := first["url"].(string)
	if status, _, _ := fetch(t, api, strings.Replace(url, "signature=", "signature=0", 1)); status != 403 {
		t.Errorf("tampered link: %d", status)
	}
	api.Clock.Advance(time.Hour)
	if status, _, _ := fetch(t, api, url); status != 403 {
		t.Errorf("link after an hour: %d", status)
	}
	again := api.Want(api.Do("GET", "/v1/messages/"+msg["id"].(string), "test_all", nil), 200, "").Data()
	if status, _, _ := fetch(t, api, again["attachments"].([]any)[0].(map[string]any)["url"].(string)); status != 200 {
		t.Errorf("fresh link: %d", status)
	}
	listed := api.Want(api.Do("GET", "/v1/conversations/"+web+"/messages", "test_all", nil), 200, "").Items()
	last := listed[len(listed)-1].(map[string]any)["attachments"].([]any)[0].(map[string]any)
	if status, _, _ := fetch(t, api, last["url"].(string)); status != 200 {
		t.Errorf("link from the message list: %d", status)
	}
	// An uploaded file attaches to one message only.
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web, "attachments": []any{map[string]any{"file_id": id}}}), 400, "file_already_used")
	// Sandbox files are invisible to live keys.
	other := api.Want(upload(t, api, "test_all", "b.pdf", "application/pdf", pdf), 201, "").Data()["id"].(string)
	api.Want(sendMsg(api, "live_all", map[string]any{"conversation_id": "conv_live", "attachments": []any{map[string]any{"file_id": other}}}), 400, "file_not_found")
}

func TestAttachmentRules(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	web := startConv(api, map[string]any{"channel": "website", "from": "visitor-rules"})
	ig := startConv(api, map[string]any{"channel": "instagram", "from": "1784000777"})
	six := make([]byte, 6<<20)
	six[0] = '%'
	a := api.Want(upload(t, api, "test_all", "a.pdf", "application/pdf", six), 201, "").Data()["id"]
	b := api.Want(upload(t, api, "test_all", "b.pdf", "application/pdf", six), 201, "").Data()["id"]
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web,
		"attachments": []any{map[string]any{"file_id": a}, map[string]any{"file_id": b}}}), 400, "attachments_too_large")
	// The refused send claimed nothing: each file still attaches once.
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web, "attachments": []any{map[string]any{"file_id": a}}}), 201, "")
	// Instagram takes images, video and audio only.
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": ig, "attachments": []any{map[string]any{"file_id": b}}}), 400, "unsupported_attachment")
	img := api.Want(upload(t, api, "test_all", "p.jpg", "image/jpeg", []byte("\xff\xd8\xff\xe0 jpeg")), 201, "").Data()["id"]
	msg := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": ig, "attachments": []any{map[string]any{"file_id": img}}}), 201, "").Data()
	if msg["type"] != "attachment" || msg["text"] != nil {
		t.Errorf("attachment-only message %v", msg)
	}
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web,
		"attachments": []any{map[string]any{"file_id": "x", "filename": "a.txt", "content_base64": "aGk="}}}), 400, "invalid_attachment")
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web,
		"attachments": []any{map[string]any{"filename": "a.txt", "content_base64": "not base64!"}}}), 400, "invalid_attachment")
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": web,
		"attachments": []any{map[string]any{"filename": "empty.txt", "content_base64": ""}}}), 400, "file_rejected")
}
