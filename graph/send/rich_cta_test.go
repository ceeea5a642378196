package send

import (
	"testing"

	"github.com/msgsvc/msgsvc/graph/model"
)

// A link button's url is an http(s) URL, not any text that starts "http".
func TestCtaFitURL(t *testing.T) {
	text := "See"
	for url, ok := range map[string]bool{"https://x.test/a": true, "http://x.test": true, "httpx://x.test": false,
		"http:x.test": false, "httpfoo": false, "": false, " ": false} {
		err := ctaFit(&model.InteractiveInput{URL: &url, DisplayText: &text})
		if (err == nil) != ok {
			t.Errorf("url %q: %v", url, err)
		}
	}
}
