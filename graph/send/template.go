package send

import (
	"fmt"
	"regexp"
	"strconv"
)

var placeholder = regexp.MustCompile(`\{\{\s*(\d+)\s*\}\}`)

// TemplateParams is how many parameters a template body takes. Its
// placeholders must be numbered {{1}} to {{n}} without gaps, as WhatsApp
// numbers them; any other numbering is an error, so a body that could index
// out of range is refused when it is stored, not when it is sent.
func TemplateParams(body string) (int, error) {
	seen := map[int]bool{}
	most := 0
	for _, m := range placeholder.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > 1000 {
			return 0, fmt.Errorf("placeholder %s is out of range; placeholders are numbered from {{1}}", m[0])
		}
		seen[n], most = true, max(most, n)
	}
	for n := 1; n <= most; n++ {
		if !seen[n] {
			return 0, fmt.Errorf("placeholder {{%d}} is missing; placeholders are numbered {{1}} to {{%d}} without gaps", n, most)
		}
	}
	return most, nil
}

// renderTemplate puts the parameters in a body's placeholders. A placeholder
// without a parameter stays as written: rendering never indexes out of range.
func renderTemplate(body string, params []string) string {
	return placeholder.ReplaceAllStringFunc(body, func(m string) string {
		n, err := strconv.Atoi(placeholder.FindStringSubmatch(m)[1])
		if err != nil || n < 1 || n > len(params) {
			return m
		}
		return params[n-1]
	})
}
