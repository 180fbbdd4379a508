package fakejudge

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// The fake judge in a conversation: deterministic replies that depend on
// what the request shows, so that tests can tell a request carried the
// history and end-to-end runs have every verdict class to show.

// Turned is one numbered input block of a request, <tag n="N">text</tag>.
type Turned struct {
	N    int
	Text string
}

// TurnItems are the request's input blocks <tag n="N">…</tag> after the
// worked examples, with their numbers and the prompt's escaping undone.
func (r *Request) TurnItems(tag string) []Turned {
	re := regexp.MustCompile(`(?s)<` + regexp.QuoteMeta(tag) + ` n="(\d+)">(.*?)</` + regexp.QuoteMeta(tag) + `>`)
	var out []Turned
	for _, m := range re.FindAllStringSubmatch(r.input(), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, Turned{n, unescape(m[2])})
	}
	return out
}

// Standalone is the fake judge's conversation_standalone_question reply:
// the question with the conversation's first user message after it, so a
// test sees the rewrite used the history (and a different history gives a
// different question).
func Standalone(r *Request) string {
	q := r.TaskText("question")
	users := r.TurnItems("user")
	switch {
	case len(users) == 0:
	case strings.ContainsFunc(q, func(c rune) bool { return unicode.Is(unicode.Han, c) }):
		q += "（前文：" + users[0].Text + "）"
	default:
		q += " (earlier: " + users[0].Text + ")"
	}
	return JSON(map[string]any{"question": q})
}

// HistoryVerdicts is the fake judge's conversation_history_verdicts
// reply. A statement is backed by the latest earlier turn whose retrieved
// chunk contains it (source chunks), else by the latest user message that
// contains it, the question being the turn after the last shown (source
// user), else by nothing. It contradicts an earlier answer when it has a
// negation ("不", "not ") and the answer contains it without.
func HistoryVerdicts(r *Request) string {
	type item struct {
		Statement   string `json:"statement"`
		Reason      string `json:"reason"`
		Source      string `json:"source"`
		Turn        *int   `json:"turn"`
		Contradicts *int   `json:"contradicts"`
	}
	retrieved, users, answers := r.TurnItems("retrieved"), r.TurnItems("user"), r.TurnItems("assistant")
	last := 0
	for _, u := range users {
		last = max(last, u.N)
	}
	users = append(users, Turned{last + 1, r.TaskText("question")})
	latest := func(items []Turned, st string) *int {
		for i := len(items) - 1; i >= 0; i-- {
			if strings.Contains(norm(items[i].Text), st) {
				n := items[i].N
				return &n
			}
		}
		return nil
	}
	out := []item{}
	for _, st := range r.TaskItems("statement") {
		key := norm(st)
		it := item{Statement: st, Source: "none", Reason: "nothing earlier states it"}
		if n := latest(retrieved, key); n != nil {
			it.Source, it.Turn, it.Reason = "chunks", n, "a chunk retrieved earlier states it"
		} else if n := latest(users, key); n != nil {
			it.Source, it.Turn, it.Reason = "user", n, "the user said it"
		}
		for _, neg := range []string{"不", "not "} {
			if pos := strings.Replace(key, neg, "", 1); pos != key {
				if n := latest(answers, pos); n != nil {
					it.Contradicts = n
					it.Reason += "; an earlier answer said the opposite"
				}
			}
		}
		out = append(out, it)
	}
	return JSON(map[string]any{"statements": out})
}

// Conversational answers faithfulness as Oracle does (the answer's
// sentences are its statements, a statement is supported when a chunk
// contains it) and every other task as Generic. End-to-end runs on a
// conversation then have supported, earlier-supported and unsupported
// statements to show.
func Conversational(r *Request) Reply {
	if strings.HasPrefix(r.Task, "faithfulness_") {
		return Oracle(r)
	}
	return Generic(r)
}
