// Package show holds how the reports of eval/report and its sub-packages
// write numbers and texts from data: scores, statuses, quoted or clipped
// texts, a changed judgement as lines.
package show

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Score is a score or a rate to three decimals, "n/a" when there is none.
func Score(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *v)
}

// Delta is a change of a score, signed, "n/a" when there is none.
func Delta(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f", *v)
}

// Clip cuts s to its first n runes, "..." marking the cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}

// StatusText is m's status on r with the judge's error, if any.
func StatusText(r *eval.Result, m eval.Metric) string {
	msg := string(r.Status[m])
	if e := r.Errors[m]; e != "" {
		msg += ": " + e
	}
	return msg
}

// Quote quotes a text for a line of output: backslashes and quotes are
// escaped, and sanitize.Line shows control characters as escapes.
func Quote(s string) string {
	return `"` + sanitize.Line(quoteEscaper.Replace(s)) + `"`
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// Change is one changed judgement as text: what was judged and each
// side's judgement, for diff's text and the HTML report's compare view.
type Change struct {
	Head, Before, After string
}

// ChangeOf is one changed judgement as lines of text. The judged text
// heads the change when both sides judged the same text; otherwise each
// side quotes its own, so that neither is mistaken for the other's.
func ChangeOf(c eval.JudgementChange) Change {
	head := sanitize.Line(string(c.Metric)) + " " + sanitize.Line(c.What)
	if c.SameText() {
		if c.Text != "" {
			head += " " + Quote(c.Text)
		}
		return Change{Head: head, Before: sanitize.Line(c.Before), After: sanitize.Line(c.After)}
	}
	side := func(after bool, judgement string) string {
		text, ok := c.Side(after)
		if !ok {
			return "(no " + sanitize.Line(c.What) + ")"
		}
		return Quote(text) + "  " + sanitize.Line(judgement)
	}
	return Change{Head: head, Before: side(false, c.Before), After: side(true, c.After)}
}

// WriteErr is the writer's sticky error, if a write has failed (bufio
// keeps the first and returns it from every later Write): a streamed
// report checks it after each sample to stop at the first failed write.
func WriteErr(bw *bufio.Writer) error {
	_, err := bw.Write(nil)
	return err
}
