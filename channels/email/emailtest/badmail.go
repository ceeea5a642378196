package emailtest

import (
	"fmt"
	"strings"
)

// ManyAttachments is the body of a multipart/mixed; boundary="b" with n
// one-byte attachments f0.bin, f1.bin, ….
func ManyAttachments(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=f%d.bin\r\n\r\nx\r\n", i)
	}
	b.WriteString("--b--\r\n")
	return b.String()
}

// Nested is the body of a multipart/mixed; boundary="b0" holding multiparts
// depth deep, the innermost a text/plain part with text.
func Nested(depth int, text string) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "--b%d\r\nContent-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n", i, i+1)
	}
	fmt.Fprintf(&b, "--b%d\r\nContent-Type: text/plain\r\n\r\n%s\r\n--b%d--\r\n", depth, text, depth)
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return b.String()
}
