package model

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// The timestamp's own digits say what time.Format says with the layout,
// for instants of every year Format writes in four digits, outside them,
// and in other zones.
func TestTimestampWritesTheLayout(t *testing.T) {
	zone := time.FixedZone("UTC-3", -3*3600)
	times := []time.Time{
		{}, time.Unix(0, 0), time.Date(2026, 11, 29, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 1, 2, 3, 4_000_000, zone),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		times = append(times, time.Unix(r.Int64N(253402300800), r.Int64N(1e9)).In(zone))
	}
	for _, tm := range times {
		ts := Timestamp{tm}
		want := tm.UTC().Format(TimestampLayout)
		if got := ts.String(); got != want {
			t.Fatalf("String of %v = %q, want %q", tm, got, want)
		}
		b, err := json.Marshal(ts)
		if err != nil || string(b) != strconv.Quote(want) {
			t.Fatalf("JSON of %v = %s (%v), want %q", tm, b, err, want)
		}
	}
}

func BenchmarkTimestampMarshalJSON(b *testing.B) {
	ts := NewTimestamp(time.Date(2026, 11, 29, 8, 0, 0, 123_000_000, time.UTC))
	b.ReportAllocs()
	for range b.N {
		if _, err := ts.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
