package webhook

import (
	"encoding/json"
	"testing"
)

func TestRedactDropsRichContent(t *testing.T) {
	in := `{"object":"message","id":"msg_1","type":"location","text":null,"provider_message_id":"wamid.1",
		"reply_to":{"message_id":"msg_0","provider_message_id":"wamid.0"},"referral":{"ad_id":"9"},
		"location":{"latitude":1,"longitude":2,"name":"Home"},"contacts":[{"name":{"formatted_name":"Bob"}}],
		"interactive":{"kind":"button_reply","title":"Yes"},"order":{"catalog_id":"c","items":[]},"story":{"kind":"mention","url":"u"},
		"share":{"url":"u"},"system":{"kind":"user_changed_number","body":"from 1 to 2"},"reaction":{"emoji":"x","message_id":"msg_0","provider_message_id":"wamid.0"},
		"attachments":[{"id":"file_1","filename":"a.jpg","url":"l","caption":"c","status":"failed"}],"sender":{"type":"visitor","name":"Ana"}}`
	out, err := redact([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"location", "contacts", "interactive", "order", "story", "share", "system", "text"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s kept: %s", k, out)
		}
	}
	r := m["reaction"].(map[string]any)
	a := m["attachments"].([]any)[0].(map[string]any)
	if _, ok := r["emoji"]; ok || r["message_id"] != "msg_0" || a["caption"] != nil || a["status"] != "failed" ||
		m["provider_message_id"] != "wamid.1" || m["reply_to"] == nil || m["referral"] == nil {
		t.Errorf("redacted %s", out)
	}
}
