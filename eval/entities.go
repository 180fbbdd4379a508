package eval

import (
	"context"
	"strings"

	"github.com/ragscope/ragscope/eval/internal/fold"
)

// context_entity_recall = |E_ref ∩ E_ctx| / |E_ref| over distinct
// entities. As in RAGAS the chunks are asked for their entities in one
// call, joined (joinedContexts), so a sample costs two calls; unlike RAGAS,
// entities match on a normalised form (EntityKey), not as exact strings.
func runContextEntityRecall(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, r *Result) {
	if r.lacks(ContextEntityRecall, blank(s.Reference), "context entity recall needs a reference") ||
		r.lacks(ContextEntityRecall, noContexts(s), "no retrieved contexts to find the reference's entities in") {
		return
	}
	var ref, got []string
	if err := together(func() (err error) { ref, err = j.Entities(ctx, s, s.Reference); return err },
		func() (err error) { got, err = j.Entities(ctx, s, joinedContexts(s.Contexts)); return err }); err != nil {
		r.fail(ContextEntityRecall, err)
		return
	}
	matches, found := matchEntities(ref, got)
	tr := &EntityRecallTrace{Reference: matches, Contexts: trimmed(got), Found: found}
	r.ContextEntityRecall = tr
	if len(matches) == 0 {
		r.set(ContextEntityRecall, StatusNoStatements, nil, "the judge found no entities in the reference")
		return
	}
	// No entity in the contexts while the reference has some is a score
	// of 0, not a status: every entity of the reference is missing from
	// what was retrieved, which is what the metric measures.
	score := entityRecallScore(found, len(matches))
	r.set(ContextEntityRecall, StatusOK, &score, "")
}

// entityRecallScore is found / distinct reference entities (> 0).
func entityRecallScore(found, total int) float64 { return float64(found) / float64(total) }

// joinedContexts is the one text entity recall asks the contexts'
// entities of: the non-empty chunks in rank order, a blank line apart.
func joinedContexts(contexts []string) string {
	return strings.Join(trimmed(contexts), "\n\n")
}

// matchEntities gives one EntityMatch per distinct reference entity (by
// EntityKey, the first spelling kept, empty keys dropped), in the judge's
// order, found when some context entity has the same key.
func matchEntities(reference, contexts []string) (matches []EntityMatch, found int) {
	byKey := make(map[string]string, len(contexts))
	for _, c := range contexts {
		c = strings.TrimSpace(c)
		if k := EntityKey(c); k != "" {
			if _, ok := byKey[k]; !ok {
				byKey[k] = c
			}
		}
	}
	matches = []EntityMatch{}
	seen := map[string]bool{}
	for _, e := range reference {
		e = strings.TrimSpace(e)
		k := EntityKey(e)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		m := EntityMatch{Entity: e}
		if c, ok := byKey[k]; ok {
			m.Found, m.Match = true, c
			found++
		}
		matches = append(matches, m)
	}
	return matches, found
}

// EntityKey is the form entities are matched on: NFKC, case folded, white
// space collapsed to one space and dropped next to a CJK character ("3 号线"
// is "3号线"), punctuation trimmed from both ends ("《民法典》" and "Paris,"
// match their bare forms). "" means the text has no entity in it.
func EntityKey(s string) string { return fold.Entity(s) }

// trimmed is the texts trimmed, without empty ones.
func trimmed(es []string) []string {
	out := []string{}
	for _, e := range es {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
