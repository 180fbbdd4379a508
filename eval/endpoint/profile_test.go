package endpoint

import (
	"sync"
	"testing"
)

func TestAbilitiesDowngrade(t *testing.T) {
	a := NewAbilities(EndpointProfile{}, "")
	if a.Format() != "json_schema" {
		t.Fatalf("start %s", a.Format())
	}
	next, ok, changed := a.Downgrade("json_schema", "refused")
	if next != "json_object" || !ok || !changed {
		t.Fatalf("first step: %s %v %v", next, ok, changed)
	}
	// A call still holding the old format learns the new one, changing nothing.
	if next, ok, changed = a.Downgrade("json_schema", "refused again"); next != "json_object" || !ok || changed {
		t.Fatalf("stale step: %s %v %v", next, ok, changed)
	}
	if next, _, _ = a.Downgrade("json_object", "refused"); next != "text" {
		t.Fatalf("second step: %s", next)
	}
	if _, ok, _ = a.Downgrade("text", "refused"); ok {
		t.Fatal("stepped past text")
	}
	if got := a.Profile().Notice(); got != "text with the schema in the prompt (json_schema and json_object refused)" {
		t.Fatalf("notice %q", got)
	}
	fixed := NewAbilities(EndpointProfile{Format: "json_object"}, "json_schema")
	if fixed.Format() != "json_schema" {
		t.Fatal("the user's format does not override the remembered one")
	}
	if _, ok, _ := fixed.Downgrade("json_schema", "refused"); ok {
		t.Fatal("a fixed format was stepped down from")
	}
}

// Concurrent calls that learn the same thing report it once.
func TestAbilitiesLearnOnce(t *testing.T) {
	a := NewAbilities(EndpointProfile{}, "")
	var wg sync.WaitGroup
	news := make(chan bool, 64)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			news <- a.IgnoredN()
			news <- a.SawReasoning()
		}()
	}
	wg.Wait()
	close(news)
	n := 0
	for b := range news {
		if b {
			n++
		}
	}
	if n != 2 || !a.Changed() || a.NHonoured() {
		t.Fatalf("%d news, changed %v, n honoured %v", n, a.Changed(), a.NHonoured())
	}
	if got := a.Profile().Notice(); got != "n not honoured, reasoning model (reasoning kept apart)" {
		t.Fatalf("notice %q", got)
	}
}

func TestSplitReasoning(t *testing.T) {
	tests := []struct {
		in, answer, reasoning string
		cut                   bool
	}{
		{"plain", "plain", "", false},
		{"<think>a</think>b", "b", "a", false},
		{"<think>\n\n</think>\n\n{}", "{}", "", false},
		{"thinking {x}</think>{}", "{}", "thinking {x}", false},
		{"<Thinking>a</Thinking>\n<think>b</think> c", "c", "a\n\nb", false},
		{"<think>cut short {", "", "cut short {", true},
		{"x < y and <b>bold</b>", "x < y and <b>bold</b>", "", false},
		{"\xa6<think>", "\xa6<think>", "", false},
		{"\xa6\n<think>", "\xa6", "", true},
		{"\xa6\n<THINK>r\xa6</Think>{}", "\xa6\n{}", "r\xa6", false},
		{"  <think>indented</think>\n{}", "{}", "indented", false},
		{`{"s": "quotes <think> and </think>"}`, `{"s": "quotes <think> and </think>"}`, "", false},
	}
	for _, tt := range tests {
		a, r, c := SplitReasoning(tt.in)
		if a != tt.answer || r != tt.reasoning || c != tt.cut {
			t.Errorf("SplitReasoning(%q) = %q, %q, %v; want %q, %q, %v", tt.in, a, r, c, tt.answer, tt.reasoning, tt.cut)
		}
	}
}

// A format the user fixed is what a run sent, not what the endpoint takes:
// the profile remembered keeps what was known; a reasoning share that did
// not move is no news; the caller's refused switches are not shared.
func TestAbilitiesToRemember(t *testing.T) {
	known := EndpointProfile{Format: "json_object", FormatRefused: "refused", SwitchRefused: []string{"z"}, ReasoningShare: 0.5}
	a := NewAbilities(known, "text")
	if a.Format() != "text" {
		t.Fatalf("format %s", a.Format())
	}
	a.MeasureReasoning(50, 100)
	if a.Changed() {
		t.Error("an unmoved reasoning share is news")
	}
	a.Refuse("a")
	if known.SwitchRefused[0] != "z" {
		t.Errorf("the caller's slice changed: %v", known.SwitchRefused)
	}
	p := a.ToRemember()
	if p.Format != "json_object" || p.FormatRefused != "refused" || len(p.SwitchRefused) != 2 {
		t.Errorf("remembered %+v", p)
	}
	a.MeasureReasoning(0, 1000)
	if !a.Changed() {
		t.Error("a moved reasoning share is no news")
	}
}
