package offline

import "strings"

// A question often names a thing the answer's sentence does not, and the
// chunk ties the two through a third: "Who is the director of the film
// shot at the Harbor Diner?" against "The Harbor Diner appeared in Night
// Shift." and "Night Shift is a 2004 film directed by Lena Park." A
// statement that restates the question names the diner, a premise; the
// sentence that supports its claim names Night Shift, which the sentence
// naming the diner names too. The question's name is then reached
// through that bridge, as a reader of the chunk reaches it.

// bridgeReach bounds how many sentences either side of the best one, in
// its chunk, are looked at for a bridge.
const bridgeReach = 8

// bridged reports whether a sentence of best's chunk names the question's
// name feat and the thing best is about (the name it opens on, or the one
// its pronoun stands for; its first and last words, in order): best is
// then about the question's thing, through that bridge.
func bridged(best *span, feat string, q *span) bool {
	subject := best.ref
	if subject == "" {
		subject = openingName(best.text)
	}
	link := stems(subject)
	if len(link) == 0 {
		return false
	}
	if len(link) > 2 {
		link = []string{link[0], link[len(link)-1]}
	}
	check := func(b *span) bool {
		return (b.feats[feat] || b.refFeats[feat]) && containsSeq(stems(withReferent(b)), link)
	}
	p, n := best.prev, best.next
	for k := 0; k < bridgeReach && (p != nil || n != nil); k++ {
		if p != nil {
			if check(p) {
				return true
			}
			p = p.prev
		}
		if n != nil {
			if check(n) {
				return true
			}
			n = n.next
		}
	}
	return false
}

// opensOn reports whether the statement opens on a name with the feature:
// what it says is said of that name, which is then its topic, not a
// premise to reach through a bridge ("Ann Lee is a married singer" for
// "Who is married to Ann Lee?").
// Function and common discourse words before the name ("The answer is
// Ann Lee ...", "According to the policy, Ann Lee ...") are skipped.
func opensOn(st *span, feat string) bool {
	w := strings.Fields(st.text)
	i := 0
	for i < len(w)-1 {
		lw := strings.ToLower(trimWord(w[i]))
		if lw != "" && !englishStop[lw] && !commonStems[stem(lw)] {
			break
		}
		i++
	}
	return wordFeats(openingName(strings.Join(w[i:], " ")))[feat]
}
