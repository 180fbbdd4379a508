package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// TestHostileReplyIsAParseErrorNotATimeout: a 300 KB reply of '{' took 38 s
// of CPU to search for an object, past the 5 s request timeout, and was
// reported as "no reply within 5s". It must be a prompt parse error that
// names the reply's size, after the retries.
func TestHostileReplyIsAParseErrorNotATimeout(t *testing.T) {
	for _, body := range []string{strings.Repeat("{", 300_000), strings.Repeat(`{"a":`, 60_000), strings.Repeat(`"`, 300_000)} {
		b := newBrain()
		b.override = func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			return fakejudge.Reply{Choices: []string{body}}, true
		}
		st := newStack(t, b, stackOpt{responseFormat: "text", timeout: 5 * time.Second})
		start := time.Now()
		res := st.run(t, context.Background(), onlyF, eval.Sample{Question: "q?", Answer: "ANSWER-hostile", Contexts: []string{"c"}})[0]
		el := time.Since(start)
		msg := res.Errors[eval.Faithfulness]
		if got := res.Status[eval.Faithfulness]; got != eval.StatusParseError {
			t.Fatalf("%.10q...: status %s (%s), want parse_error", body, got, msg)
		}
		if !strings.Contains(msg, "300000 bytes") || strings.Contains(msg, "no reply within") {
			t.Fatalf("%.10q...: error %q should name the reply's size and not blame the timeout", body, msg)
		}
		if n := st.srv.Count(""); n != 4 {
			t.Fatalf("%d calls, want 4 (the retries)", n)
		}
		// Four searches slow enough to matter would each have run into
		// the request timeout, and the status above would say so; the
		// bound is that, with room for the race detector on a loaded
		// machine.
		t.Logf("%.10q...: 4 calls in %v", body, el)
		if el > 4*5*time.Second {
			t.Fatalf("took %v", el)
		}
	}
}
