package offline

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

func TestStripControls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889."},
		{"纳税人识别号不变。", "纳税人识别号不变。"},
		{"\x1b[31mred\x1b[0m text", "red text"},
		{"Par\x1b[1;31mis", "Paris"},
		{"a\x1b[?1049hb", "ab"},
		{"copy\x1b]52;c;MTIzNDU=\x07 this", "copy this"},
		{"copy\x1b]52;c;MTIzNDU=\x1b\\ this", "copy this"},
		{"link \x1b]8;;http://evil\x07here\x1b]8;;\x07", "link here"},
		{"\x1bPq#0;2;0;0;0\x1b\\image", "image"},
		{"unterminated \x1b]0;title and the rest", "unterminated 0;title and the rest"},
		{"charset \x1b(B ok \x1b7saved\x1b8", "charset  ok saved"},
		{"lone ESC at the end\x1b", "lone ESC at the end"},
		{"C1 \u009b31mCSI\u009b0m", "C1 CSI"},
		{"C1 \u009d52;c;eA==\u009c OSC", "C1  OSC"},
		{"NEL\u0085 and DEL\x7f and NUL\x00 and BEL\a", "NEL and DEL and NUL and BEL"},
		{"keeps\ttab\nnewline\r\n", "keeps\ttab\nnewline\r\n"},
		{"abc\u202Egnp.exe", "abcgnp.exe"},
		{"\u2066isolated\u2069 \u200Emarks\u200F\u061C", "isolated marks"},
		{"zero\u200Bwidth\u200C\u200D\u2060\uFEFF", "zerowidth"},
		{"tags\U000E0041\U000E0042", "tags"},
		{"line\u2028separator", "line\nseparator"},
		{"invalid \xff kept", "invalid \xff kept"},
		{"emoji 👍 kept", "emoji 👍 kept"},
	} {
		if got := stripControls(tc.in); got != tc.want {
			t.Errorf("stripControls(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStripMatchesSanitize: what sanitize shows as an escape, the judge
// does not read; what sanitize leaves as it is, the judge reads as it is.
func TestStripMatchesSanitize(t *testing.T) {
	for r := rune(0); r <= 0xe01ef; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if r == 0x30000 {
			r = 0xe0000
		}
		s := string(r)
		escaped := sanitize.Line(s) != s
		stripped := stripControls(s) != s
		if r == '\t' || r == '\n' || r == '\r' {
			if stripped {
				t.Errorf("%U stripped", r)
			}
			continue
		}
		if escaped != stripped {
			t.Errorf("%U: sanitize escapes it %v, the judge strips it %v", r, escaped, stripped)
		}
	}
}

func TestStripControlsDoesNotAllocateCleanText(t *testing.T) {
	s := "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？ The Eiffel Tower was completed in 1889.\n"
	if n := testing.AllocsPerRun(100, func() { stripControls(s) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// poison inserts hostile sequences into a text: at its start, inside it
// (often in the middle of a word or a number) and at its end.
func poison(s string) string {
	if s == "" {
		return s
	}
	pieces := []string{"\x1b[31m", "\u202e", "\x1b]52;c;MTIzNDU=\x07", "\u200b", "\u009b1;2m", "\x1b[0m", "\x00", "\ufeff"}
	rs := []rune(s)
	var out []rune
	next := 0
	for i, r := range rs {
		if i == 0 || i == len(rs)/3 || i == len(rs)/2 || i == 2*len(rs)/3 {
			out = append(out, []rune(pieces[next%len(pieces)])...)
			next++
		}
		out = append(out, r)
	}
	return string(out) + pieces[next%len(pieces)]
}

// TestHostileEscapesDoNotChangeVerdicts: every demo sample, with ANSI
// escapes, an OSC 52 write, C1 controls, bidi overrides and zero-width
// characters spliced into its question, answer, chunks and reference,
// scores exactly what the clean sample scores, on all four metrics, with
// the same statements and reasons.
func TestHostileEscapesDoNotChangeVerdicts(t *testing.T) {
	samples := demoSamples(t)
	ids := make([]string, 0, len(samples))
	for id := range samples {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var clean, hostile []eval.Sample
	for i, id := range ids {
		s := *samples[id]
		s.Index = i
		clean = append(clean, s)
		h := s
		h.Question, h.Answer, h.Reference = poison(s.Question), poison(s.Answer), poison(s.Reference)
		h.Contexts = make([]string, len(s.Contexts))
		for k, c := range s.Contexts {
			h.Contexts[k] = poison(c)
		}
		hostile = append(hostile, h)
	}
	// The two answers the task names: an ANSI colour and a U+202E.
	clean = append(clean, eval.Sample{Index: len(clean), ID: "ansi", Question: "When was the Eiffel Tower completed?",
		Answer:    "The Eiffel Tower was completed in 1889. It is in Paris.",
		Contexts:  []string{"The Eiffel Tower was completed on 31 March 1889. It stands in Paris."},
		Reference: "It was completed in 1889."})
	h := clean[len(clean)-1]
	h.Answer = "The Eiffel Tower was \x1b[31mcompleted\x1b[0m in 18\x1b[31m89. It is in \u202eParis."
	hostile = append(hostile, h)

	run := func(s []eval.Sample) []*eval.Result {
		r := &eval.Runner{Judge: New(), Config: eval.RunnerConfig{Workers: 4}}
		return r.Run(context.Background(), s)
	}
	want, got := run(clean), run(hostile)
	for i := range want {
		w, g := want[i], got[i]
		if w == nil || g == nil {
			t.Fatalf("sample %d not evaluated", i)
		}
		for _, m := range eval.AllMetrics {
			ws, wok := w.Score(m)
			gs, gok := g.Score(m)
			if w.Status[m] != g.Status[m] || ws != gs || wok != gok {
				t.Errorf("%s %s: hostile %s %v, clean %s %v", w.ID, m, g.Status[m], gs, w.Status[m], ws)
			}
		}
		if !reflect.DeepEqual(w.Faithfulness, g.Faithfulness) {
			t.Errorf("%s: faithfulness trace differs:\nhostile %+v\nclean   %+v", w.ID, g.Faithfulness, w.Faithfulness)
		}
		if !reflect.DeepEqual(w.ContextPrecision, g.ContextPrecision) || !reflect.DeepEqual(w.ContextRecall, g.ContextRecall) {
			t.Errorf("%s: precision or recall trace differs", w.ID)
		}
	}
	if v, _ := want[len(want)-1].Score(eval.Faithfulness); v != 1 {
		t.Fatalf("the clean Eiffel answer scores %v, want 1", v)
	}
}
