package repo

import (
	"reflect"
	"slices"
	"testing"
)

// fieldAddrs maps the address of each field of a struct value to its db
// tag path, as dbTags names them.
func fieldAddrs(v reflect.Value, prefix string, out map[uintptr]string) {
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		tag := sf.Tag.Get("db")
		switch {
		case sf.Anonymous && tag == "" && f.Kind() == reflect.Struct:
			fieldAddrs(f, prefix, out)
		case tag != "" && f.Kind() == reflect.Struct && len(nestedTags(f.Type())) > 0:
			fieldAddrs(f, prefix+tag+".", out)
		case tag != "" && tag != "-":
			out[f.Addr().Pointer()] = prefix + tag
		}
	}
}

// TestScanTargetsFollowTheColumns: the explicit scans (scan.go) hand
// database/sql each field of a row struct in the order its column list
// selects the columns, every column once.
func TestScanTargetsFollowTheColumns(t *testing.T) {
	for name, tc := range map[string]struct {
		row     interface{ targets() []any }
		columns string
	}{
		"Conversation":        {new(Conversation), conversationColumns},
		"nullAccount":         {new(nullAccount), accountColumns},
		"nullContact":         {new(nullContact), contactColumns},
		"conversationForSend": {new(conversationForSend), conversationForSendColumns},
	} {
		addrs := map[uintptr]string{}
		fieldAddrs(reflect.ValueOf(tc.row).Elem(), "", addrs)
		var got []string
		for _, p := range tc.row.targets() {
			got = append(got, addrs[reflect.ValueOf(p).Pointer()])
		}
		if want := resultNames(tc.columns); !slices.Equal(got, want) {
			t.Errorf("%s: targets scan into\n%v\nfor the columns\n%v", name, got, want)
		}
	}
}
