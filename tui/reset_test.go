package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/prompts"
)

func TestPromptReset(t *testing.T) {
	const path = "/home/u/prompts/faithfulness_verdicts.zh.tmpl"
	overridden := func() []prompts.Info {
		l := fixturePrompts()
		l[3].Source, l[3].Path, l[3].SHA256 = prompts.SourceOverride, path, "ab12cd34"+strings.Repeat("0", 56)
		return l
	}
	builtIn := embeddedInfo(prompts.TaskFaithfulnessVerdicts, "zh")
	tests := []struct {
		name      string
		keys      []string // in the prompt list
		resetErr  error
		wantAsk   string
		wantReset []string
		want      []string // on the screen after
		notWant   []string
	}{
		{name: "y resets the override", keys: []string{"j", "j", "j", "d", "y"},
			wantAsk:   "Reset faithfulness_verdicts.zh to the built-in text? Its override file and any kept draft are deleted. [y/n]",
			wantReset: []string{"faithfulness_verdicts.zh"},
			want: []string{"prompt faithfulness_verdicts.zh reset to the built-in text (sha256 " + shortHash(builtIn.SHA256),
				"embedded  " + shortHash(builtIn.SHA256)},
			notWant: []string{path, "override  ab12cd34"}},
		{name: "any other key cancels", keys: []string{"j", "j", "j", "d", "n"},
			wantAsk: "Reset faithfulness_verdicts.zh",
			want:    []string{"reset cancelled; faithfulness_verdicts.zh is unchanged", "override  ab12cd34  " + path}},
		{name: "a built-in prompt may drop its draft", keys: []string{"d", "y"},
			wantAsk:   "faithfulness_statements.en already uses the built-in text; reset it anyway, deleting a draft of it if one is kept? [y/n]",
			wantReset: []string{"faithfulness_statements.en"},
			want:      []string{"prompt faithfulness_statements.en reset to the built-in text"}},
		{name: "the host refuses", keys: []string{"j", "j", "j", "d", "y"}, resetErr: errors.New("remove " + path + ": permission denied"),
			wantAsk:   "Reset faithfulness_verdicts.zh",
			wantReset: []string{"faithfulness_verdicts.zh"},
			want:      []string{"cannot reset faithfulness_verdicts.zh: remove " + path + ": permission denied", "override  ab12cd34  " + path}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			h.list, h.resetErr = overridden(), tt.resetErr
			m := newTestModel(t, hostOptions(h), 120, 30)
			pressDrive(t, m, "p")
			keys := tt.keys
			pressDrive(t, m, keys[:len(keys)-1]...)
			if s := flat(screenText(m)); !strings.Contains(s, tt.wantAsk) {
				t.Fatalf("the question misses %q:\n%s", tt.wantAsk, screenText(m))
			}
			if len(h.reset) != 0 {
				t.Fatal("reset before the answer")
			}
			pressDrive(t, m, keys[len(keys)-1])
			if !slices.Equal(h.reset, tt.wantReset) {
				t.Fatalf("reset %v, want %v", h.reset, tt.wantReset)
			}
			s := flat(screenText(m))
			for _, w := range tt.want {
				if !strings.Contains(s, flat(w)) {
					t.Fatalf("screen misses %q:\n%s", w, screenText(m))
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(s, flat(w)) {
					t.Fatalf("screen still shows %q:\n%s", w, screenText(m))
				}
			}
		})
	}
}

// d belongs to the prompt list; elsewhere it resets nothing.
func TestResetKeyOnlyInThePromptList(t *testing.T) {
	for _, keys := range [][]string{{"d"}, {"enter", "d"}, {"enter", "x", "d"}} {
		h := fixtureHost()
		m := newTestModel(t, hostOptions(h), 120, 30)
		pressDrive(t, m, keys...)
		if m.ask != nil || len(h.reset) != 0 {
			t.Fatalf("%v: asked %v, reset %v", keys, m.ask, h.reset)
		}
	}
}
