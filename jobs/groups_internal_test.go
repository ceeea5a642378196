package jobs

import (
	"fmt"
	"slices"
	"testing"
)

// TestDeliveryGroups: ready deliveries go in as few tasks as DeliverGroupSize
// allows, ceil(n/10), none empty and none larger, every id once in order,
// the sizes differing by one at most; one delivery is a task of one.
func TestDeliveryGroups(t *testing.T) {
	tests := []struct {
		n     int
		sizes []int
	}{
		{0, nil},
		{1, []int{1}},
		{2, []int{2}},
		{10, []int{10}},
		{11, []int{5, 6}},
		{20, []int{10, 10}},
		{21, []int{7, 7, 7}},
		{500, nil}, // 50 tasks of 10
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			ids := make([]string, tt.n)
			for i := range ids {
				ids[i] = fmt.Sprintf("whd_%d", i)
			}
			groups := deliveryGroups(ids, DeliverGroupSize)
			if want := (tt.n + DeliverGroupSize - 1) / DeliverGroupSize; len(groups) != want {
				t.Fatalf("%d tasks, want %d", len(groups), want)
			}
			var sizes []int
			for _, g := range groups {
				sizes = append(sizes, len(g))
			}
			if tt.sizes != nil && !slices.Equal(sizes, tt.sizes) {
				t.Errorf("sizes %v, want %v", sizes, tt.sizes)
			}
			if len(sizes) > 0 && (slices.Max(sizes) > DeliverGroupSize || slices.Max(sizes)-slices.Min(sizes) > 1 || slices.Min(sizes) == 0) {
				t.Errorf("sizes %v: want 1 to %d, differing by one at most", sizes, DeliverGroupSize)
			}
			if got := slices.Concat(groups...); !slices.Equal(got, ids) {
				t.Errorf("the tasks carry %v, want %v", got, ids)
			}
		})
	}
}
