package records

import (
	"slices"
	"testing"
)

func TestRecordsOfProseAreNone(t *testing.T) {
	for _, text := range []string{
		"The council met on Monday. It decided: the bridge opens in May.",
		"Time: 06:30 is when the gates open, and they close late in the evening after the last train has left.",
	} {
		if r := Records(text); r != nil {
			t.Errorf("Records(%q) = %+v, want none for prose", text, r)
		}
	}
}

// A slash in a header's brackets is its unit's, not a list of keys; a
// bracketed note is no unit.
func TestHeaderKeysAndUnits(t *testing.T) {
	keys := map[string][]string{
		"北京/上海/深圳":         {"北京", "上海", "深圳"},
		"经理级（元/晚）":         {"经理级（元/晚）"},
		"Cost (USD/night)": {"Cost (USD/night)"},
		"Seats / users":    {"Seats", "users"},
	}
	for h, want := range keys {
		if got := splitKeys(h); !slices.Equal(got, want) {
			t.Errorf("splitKeys(%q) = %q, want %q", h, got, want)
		}
	}
	units := map[string]string{"经理级（元/晚）": "元/晚", "Cap (USD)": "USD", "Cap (excluding taxes)": "", "Plan": "", "Rate (2024)": ""}
	for h, want := range units {
		if got := headerUnit(h); got != want {
			t.Errorf("headerUnit(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestFieldGoesOnAfterASemicolon: a piece after a semicolon that is no
// field of its own goes on with the field before it.
func TestFieldGoesOnAfterASemicolon(t *testing.T) {
	fs := Fields("Rates\n- Coach A: half day 1,500; full day 2,400\n- Coach B: half day 1,100; Driver: included")
	var got []string
	for _, f := range fs {
		got = append(got, f.Label+"="+f.Value)
	}
	want := []string{`field "Coach A"=half day 1,500； full day 2,400`, `field "Coach B"=half day 1,100`, `field "Driver"=included`}
	if !slices.Equal(got, want) {
		t.Errorf("Fields = %q, want %q", got, want)
	}
}
