package tui

import (
	"slices"
	"strings"
	"testing"
)

// The rows follow the filter bar key by key; a half-typed term keeps the
// rows of the last expression that parsed, with its error as a dim hint.
func TestFilterAsYouType(t *testing.T) {
	tests := []struct {
		typed string
		shown []int
		hint  string // the error under the bar, "" for none
	}{
		{"f", []int{1, 2, 3}, ""}, // free text so far: Eiffel, refund, office
		{"f<", []int{1, 2, 3}, `f<: "" is not a score between 0 and 1`},
		{"f<0", nil, ""},
		{"f<0.", nil, ""},
		{"f<0.5", []int{0, 6}, ""},
		{"f<0.5 ", []int{0, 6}, ""},
		{"f<0.5 s", []int{6}, ""},
		{"f<0.5 status", nil, ""}, // free text again, matching nothing
		{"f<0.5 status:", nil, `status:: unknown status ""`},
		{"f<0.5 status:n/a", []int{6}, ""},
		{`f<0.5 status:n/a "mysql`, []int{6}, "unclosed quote"},
	}
	m := newTestModel(t, fixtureOptions(), 100, 30)
	press(m, "/")
	typed := ""
	for _, tt := range tests {
		if !strings.HasPrefix(tt.typed, typed) {
			t.Fatalf("%q does not continue %q", tt.typed, typed)
		}
		typeText(m, strings.TrimPrefix(tt.typed, typed))
		typed = tt.typed
		if got := shownSamples(m); !slices.Equal(got, tt.shown) && len(got)+len(tt.shown) > 0 {
			t.Fatalf("%q: shown %v, want %v", tt.typed, got, tt.shown)
		}
		hint := lineOf(screenText(m), "filter: ")
		switch {
		case tt.hint == "" && hint != "":
			t.Fatalf("%q: a hint %q", tt.typed, hint)
		case tt.hint != "" && !strings.Contains(hint, tt.hint):
			t.Fatalf("%q: hint %q, want %q", tt.typed, hint, tt.hint)
		case tt.hint != "" && !strings.Contains(m.View().Content, styledAs(m.st.muted.Render, "filter: ")):
			t.Fatalf("%q: the hint is not dimmed", tt.typed)
		}
		if m.mode != modeFilter {
			t.Fatalf("%q: the bar closed", tt.typed)
		}
	}
	// enter on a half-typed term: the hint becomes the error, the bar stays.
	press(m, "enter")
	if m.mode != modeFilter || !strings.Contains(m.View().Content, styledAs(m.st.errorLine.Render, "filter: ")) {
		t.Fatalf("enter on an error: filtering %v\n%s", m.mode == modeFilter, screenText(m))
	}
	typeText(m, `"`)
	press(m, "enter")
	if m.mode == modeFilter || m.filter == nil || m.filter.src != `f<0.5 status:n/a "mysql"` || !slices.Equal(shownSamples(m), []int{6}) {
		t.Fatalf("enter did not keep the filter: filtering %v, filter %+v", m.mode == modeFilter, m.filter)
	}
}

// styledAs is s as style starts it: a line clipped to the screen loses
// the style's end, not its start.
func styledAs(style func(...string) string, s string) string {
	return strings.SplitN(style("\x00"), "\x00", 2)[0] + s
}

// esc puts back the filter in force when the bar opened, with the cursor
// on the sample it was on; enter keeps the one typed.
func TestFilterBarEscRestoresEnterKeeps(t *testing.T) {
	tests := []struct {
		name   string
		before string // applied first, "" for none
		typed  string
		key    string
		filter string // in force afterwards
		shown  []int
		cursor int
	}{
		{"esc with no filter before", "", "diag:ok", "esc", "", []int{0, 1, 2, 3, 4, 5, 6, 7}, 2},
		{"esc puts the previous filter back", "status:ok", " diag:ok", "esc", "status:ok", []int{0, 1, 2, 3, 4}, 2},
		{"esc after emptying the bar", "status:ok", "\x15", "esc", "status:ok", []int{0, 1, 2, 3, 4}, 2},
		{"enter keeps the new filter", "status:ok", " diag:ok", "enter", "status:ok diag:ok", []int{1, 4}, 1},
		{"enter on an emptied bar clears", "status:ok", "\x15", "enter", "", []int{0, 1, 2, 3, 4, 5, 6, 7}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), 100, 30)
			applyFilter(m, tt.before)
			press(m, "j", "j", "/")
			if tt.typed == "\x15" {
				press(m, "ctrl+u")
			} else {
				typeText(m, tt.typed)
			}
			press(m, tt.key)
			src := ""
			if m.filter != nil {
				src = m.filter.src
			}
			if m.mode == modeFilter || src != tt.filter {
				t.Fatalf("filtering %v, filter %q, want %q", m.mode == modeFilter, src, tt.filter)
			}
			if got := shownSamples(m); !slices.Equal(got, tt.shown) {
				t.Fatalf("shown %v, want %v", got, tt.shown)
			}
			if cursorSample(m) != tt.cursor {
				t.Fatalf("cursor on sample %d, want %d", cursorSample(m), tt.cursor)
			}
			// The bar reopens on what is in force.
			press(m, "/")
			if m.input.Value() != tt.filter {
				t.Fatalf("the bar reopened on %q, want %q", m.input.Value(), tt.filter)
			}
		})
	}
}

// The position is [selected row/rows shown], in every table mode.
func TestPositionIndicator(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) *Model
		keys  []string
		want  string
	}{
		{"first row", func(t *testing.T) *Model { return newTestModel(t, fixtureOptions(), 100, 30) }, nil, "[1/8]"},
		{"moved", func(t *testing.T) *Model { return newTestModel(t, fixtureOptions(), 100, 30) }, []string{"j", "j"}, "[3/8]"},
		{"last", func(t *testing.T) *Model { return newTestModel(t, fixtureOptions(), 100, 30) }, []string{"G"}, "[8/8]"},
		{"filtered", func(t *testing.T) *Model {
			m := newTestModel(t, fixtureOptions(), 100, 30)
			applyFilter(m, "f<0.5")
			return m
		}, []string{"j"}, "[2/2]"},
		{"typing a filter", func(t *testing.T) *Model {
			m := newTestModel(t, fixtureOptions(), 100, 30)
			press(m, "/")
			typeText(m, "status:ok")
			return m
		}, nil, "[1/5]"},
		{"nothing matches", func(t *testing.T) *Model {
			m := newTestModel(t, fixtureOptions(), 100, 30)
			applyFilter(m, "zzz")
			return m
		}, nil, "[0/0]"},
		{"no samples yet", func(t *testing.T) *Model {
			return newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Total: 10}, 100, 30)
		}, nil, "[0/0]"},
		{"comparing", func(t *testing.T) *Model { return newDeltaModel(t, 100, 30) }, []string{"j"}, "[2/8]"},
		{"comparing, filtered on the change", func(t *testing.T) *Model {
			m := newDeltaModel(t, 100, 30)
			applyFilter(m, "df<0")
			return m
		}, []string{"j"}, "[2/2]"},
		{"60 columns", func(t *testing.T) *Model { return newTestModel(t, fixtureOptions(), 60, 20) }, []string{"G"}, "[8/8]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.setup(t)
			press(m, tt.keys...)
			s := screenText(m)
			line := lineOf(s, "diagnosis  ")
			if !strings.HasSuffix(strings.TrimRight(line, " "), " "+tt.want) {
				t.Fatalf("diagnosis line %q does not end with %s:\n%s", line, tt.want, s)
			}
			if w := len([]rune(line)); w > m.width {
				t.Fatalf("the line is %d wide on %d columns", w, m.width)
			}
		})
	}
}
