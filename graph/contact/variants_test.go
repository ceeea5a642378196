package contact

import (
	"reflect"
	"testing"
)

func TestPhoneVariants(t *testing.T) {
	cases := map[string][]string{
		"+551187654321":  {"+5511987654321"}, // Brazil, wa_id without the ninth digit
		"+5511987654321": {"+551187654321"},
		"+551133334444":  nil,               // a Brazilian landline has no ninth digit
		"+5491123456789": {"+541123456789"}, // Argentina, wa_id with the 9
		"+541123456789":  {"+5491123456789"},
		"+15551234567":   nil,
	}
	for in, want := range cases {
		if got := PhoneVariants(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}
