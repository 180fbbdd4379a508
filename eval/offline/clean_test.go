package offline

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

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
