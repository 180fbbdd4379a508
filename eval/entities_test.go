package eval

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestEntityKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Trafalgar Square", "trafalgar square"},
		{"  trafalgar\n\tSQUARE, ", "trafalgar square"},
		{"ＡＢＣ　Bank", "abc bank"}, // full-width letters and space (NFKC)
		{"12㎞", "12km"},          // a compatibility unit sign
		{"《民法典》", "民法典"},
		{"“天宫院站”", "天宫院站"},
		{"3 号线", "3号线"},       // no space next to a Han character
		{"N 29", "n 29"},      // but kept between Latin letters and digits
		{"£1.75", "£1.75"},    // a currency sign is not punctuation
		{"07:00.", "07:00"},   // inner punctuation stays, the end is trimmed
		{"Straße", "strasse"}, // full case folding
		{"...", ""},
		{"", ""},
	} {
		if got := EntityKey(tc.in); got != tc.want {
			t.Errorf("EntityKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMatchEntities(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ref, ctx  []string
		want      []EntityMatch
		wantFound int
	}{
		{"exact and normalised", []string{"Trafalgar Square", "N29", "£1.75"}, []string{"trafalgar square,", "£1.75"},
			[]EntityMatch{{"Trafalgar Square", true, "trafalgar square,"}, {"N29", false, ""}, {"£1.75", true, "£1.75"}}, 2},
		// RAGAS would count "Paris" twice in |E_ref| when the judge
		// repeats it; a distinct entity counts once, its first spelling kept.
		{"duplicates in the reference count once", []string{"Paris", "PARIS", " paris "}, []string{"Paris"},
			[]EntityMatch{{"Paris", true, "Paris"}}, 1},
		{"empty and punctuation-only entities are dropped", []string{"", "—", "Enfield Town"}, []string{"Enfield Town"},
			[]EntityMatch{{"Enfield Town", true, "Enfield Town"}}, 1},
		{"no context entities: all missing", []string{"4号线", "06:00"}, nil,
			[]EntityMatch{{"4号线", false, ""}, {"06:00", false, ""}}, 0},
		{"chinese with full-width digits and brackets", []string{"《民法典》", "４号线"}, []string{"民法典", "4 号线"},
			[]EntityMatch{{"《民法典》", true, "民法典"}, {"４号线", true, "4 号线"}}, 2},
		{"the first context spelling is the match", []string{"ABC"}, []string{"abc", "ABC"},
			[]EntityMatch{{"ABC", true, "abc"}}, 1},
		{"no reference entities", nil, []string{"x"}, []EntityMatch{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found := matchEntities(tc.ref, tc.ctx)
			if !slices.Equal(got, tc.want) || found != tc.wantFound {
				t.Errorf("MatchEntities = %+v, %d; want %+v, %d", got, found, tc.want, tc.wantFound)
			}
		})
	}
}

// entityJudge lists entities from a script keyed by the text asked about.
type entityJudge struct {
	nopJudge
	entities map[string][]string
	fail     map[string]error
	mu       *sync.Mutex
	asked    *[]string
}

func (j entityJudge) Entities(_ context.Context, _ *Sample, text string) ([]string, error) {
	j.mu.Lock()
	*j.asked = append(*j.asked, text)
	j.mu.Unlock()
	if err := j.fail[text]; err != nil {
		return nil, err
	}
	return j.entities[text], nil
}

func TestContextEntityRecall(t *testing.T) {
	ref := "Take bus 73 from Oxford Circus to Stoke Newington; it runs every 8 minutes."
	ctxs := []string{" Bus 73 runs from Oxford Circus. ", "", "Buses run every 8 minutes on weekdays."}
	joined := "Bus 73 runs from Oxford Circus.\n\nBuses run every 8 minutes on weekdays."
	full := Sample{Question: "q", Answer: "a", Reference: ref, Contexts: ctxs}
	for _, tc := range []struct {
		name   string
		s      Sample
		ents   map[string][]string
		fail   map[string]error
		st     Status
		score  float64
		msg    string
		asked  int
		traced bool
	}{
		// 73, Oxford Circus and 8 minutes of the four: 3/4.
		{"three of four found", full, map[string][]string{
			ref:    {"73", "Oxford Circus", "Stoke Newington", "8 minutes", "oxford circus"},
			joined: {"Bus 73", "73", "Oxford Circus", "8 minutes", "weekdays"},
		}, nil, StatusOK, 0.75, "", 2, true},
		{"no context entities is 0", full, map[string][]string{ref: {"Oxford Circus"}, joined: {}}, nil, StatusOK, 0, "", 2, true},
		{"no reference entities", full, map[string][]string{ref: {}, joined: {"73"}}, nil,
			StatusNoStatements, 0, "no entities in the reference", 2, true},
		{"empty reference", Sample{Question: "q", Reference: " ", Contexts: ctxs}, nil, nil, StatusMissingInput, 0, "needs a reference", 0, false},
		{"no contexts", Sample{Question: "q", Reference: ref, Contexts: []string{"", "  "}}, nil, nil, StatusMissingInput, 0, "no retrieved contexts", 0, false},
		{"the contexts' call fails", full, map[string][]string{ref: {"73"}}, map[string]error{joined: NewStepError(StatusParseError, "entities: bad reply")},
			StatusParseError, 0, "bad reply", 2, false},
		{"the reference's call fails", full, nil, map[string]error{ref: errors.New("connection reset")},
			StatusJudgeError, 0, "connection reset", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			j := entityJudge{entities: tc.ents, fail: tc.fail, mu: &sync.Mutex{}, asked: &asked}
			s := tc.s
			var r Result
			runContextEntityRecall(context.Background(), j, &s, nil, &r)
			if r.Status[ContextEntityRecall] != tc.st {
				t.Fatalf("status %s (%s), want %s", r.Status[ContextEntityRecall], r.Errors[ContextEntityRecall], tc.st)
			}
			v, ok := r.Score(ContextEntityRecall)
			if ok != (tc.st == StatusOK) || (ok && math.Abs(v-tc.score) > 1e-12) {
				t.Errorf("score %v %v, want %v", v, ok, tc.score)
			}
			if !strings.Contains(r.Errors[ContextEntityRecall], tc.msg) {
				t.Errorf("message %q, want %q in it", r.Errors[ContextEntityRecall], tc.msg)
			}
			if len(asked) != tc.asked {
				t.Errorf("asked %d texts (%q), want %d", len(asked), asked, tc.asked)
			}
			for _, a := range asked {
				if a != ref && a != joined {
					t.Errorf("asked about %q: neither the reference nor the joined contexts", a)
				}
			}
			if (r.ContextEntityRecall != nil) != tc.traced {
				t.Fatalf("trace %+v, want one: %v", r.ContextEntityRecall, tc.traced)
			}
			if tc.name == "three of four found" {
				tr := r.ContextEntityRecall
				want := []EntityMatch{{"73", true, "73"}, {"Oxford Circus", true, "Oxford Circus"}, {"Stoke Newington", false, ""}, {"8 minutes", true, "8 minutes"}}
				if !slices.Equal(tr.Reference, want) || tr.Found != 3 || len(tr.Contexts) != 5 {
					t.Errorf("trace %+v", tr)
				}
			}
		})
	}
}
