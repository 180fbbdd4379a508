package records

import "testing"

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
