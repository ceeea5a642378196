package send

import "testing"

func TestTemplateParams(t *testing.T) {
	tests := []struct {
		name, body string
		want       int
		wantErr    bool
	}{
		{"none", "Hello there", 0, false},
		{"one", "Hi {{1}}", 1, false},
		{"spaces and repeats", "Hi {{ 1 }}, {{2}} and {{1}} again", 2, false},
		{"zero", "Hi {{0}}", 0, true},
		{"gap", "Hi {{1}} {{3}}", 0, true},
		{"starts at two", "Hi {{2}}", 0, true},
		{"ninety-nine alone", "Hi {{99}}", 0, true},
		{"too many digits", "Hi {{99999999999999999999}}", 0, true},
		{"not a placeholder", "Hi {{name}}", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TemplateParams(tt.body)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("TemplateParams(%q) = %d, %v; want %d, error %v", tt.body, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestRenderTemplate(t *testing.T) {
	tests := []struct {
		name, body string
		params     []string
		want       string
	}{
		{"all given", "Hi {{1}}, order {{2}}", []string{"Ann", "42"}, "Hi Ann, order 42"},
		{"repeated", "{{1}}{{ 1 }}", []string{"a"}, "aa"},
		{"missing stays", "Hi {{1}}, order {{2}}", []string{"Ann"}, "Hi Ann, order {{2}}"},
		{"extra ignored", "Hi {{1}}", []string{"Ann", "extra"}, "Hi Ann"},
		{"zero stays", "Hi {{0}}", []string{"Ann"}, "Hi {{0}}"},
		{"ninety-nine stays", "Hi {{99}}", nil, "Hi {{99}}"},
		{"huge stays", "Hi {{99999999999999999999}}", []string{"Ann"}, "Hi {{99999999999999999999}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderTemplate(tt.body, tt.params); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
