package offline

import (
	"fmt"
	"slices"
	"strings"
)

// Roles: who did what, when a sentence names several people for several
// things. "Beowulf is a 2007 film directed by Robert Zemeckis and written
// by Neil Gaiman" has every word of "Beowulf was directed by Neil Gaiman",
// and a judge that counts words supports the swap. The sentence binds each
// name to its verb ("directed by" Robert Zemeckis, "written by" Neil
// Gaiman); a statement that binds one of those names to another of those
// verbs contradicts it (DetectorRole). A verb the sentence binds to no one,
// or a name it binds to nothing, decides nothing: the support test stands.
// English only.

// maxRoleBindings bounds the bindings a statement or a sentence may have
// for roleConflict to compare them.
const maxRoleBindings = 32

// binding is a verb and the names it is said of: "produced by DreamWorks
// Animation" or "Paramount Pictures produced".
type binding struct {
	verb   string     // the verb's stem
	agents [][]string // each name's word stems
	text   string     // as written, for the reason
}

// passiveBindings are a text's "<participle> by <name>[, <name>] [and
// <name>]" bindings; a list ends at a lowercase word, so "directed by A
// and written by B" binds two verbs.
func passiveBindings(lx []lexeme) []binding {
	var out []binding
	for i := 0; i+2 < len(lx); i++ {
		l := lx[i]
		if l.kind != 'w' || l.capital || !participle(l.text) || lx[i+1].text != "by" {
			continue
		}
		b := binding{verb: stem(l.text)}
		var name, orig []string // a name's stems, and its words as written
		var written []string
		flush := func() {
			if len(name) > 0 {
				b.agents = append(b.agents, name)
				written = append(written, strings.Join(orig, " "))
			}
			name, orig = nil, nil
		}
	list:
		for k := i + 2; k < len(lx); k++ {
			x := lx[k]
			switch {
			case x.kind == 'w' && x.capital:
				name, orig = append(name, stem(x.text)), append(orig, x.orig)
			case x.kind == 'w' && len(name) > 0 && nameParticles[x.text] && k+1 < len(lx) && lx[k+1].capital:
				orig = append(orig, x.orig)
			case x.kind == 'p' && (x.text == "\"" || x.text == "'" || x.text == "“" || x.text == "”"):
			case x.kind == 'p' && x.text == ",", x.kind == 'w' && x.text == "and":
				flush()
			default:
				break list // the list ends
			}
		}
		flush()
		if len(b.agents) > 0 {
			b.text = l.orig + " by " + strings.Join(written, ", ")
			out = append(out, b)
		}
	}
	return out
}

// activeBindings are a statement's "<name> <past tense>" bindings:
// "Paramount Pictures produced the sequel".
func activeBindings(lx []lexeme) []binding {
	var out []binding
	for i := 0; i < len(lx); i++ {
		if lx[i].kind != 'w' || !lx[i].capital {
			continue
		}
		j := i
		var name, orig []string
		for ; j < len(lx) && lx[j].kind == 'w' && (lx[j].capital || len(name) > 0 && nameParticles[lx[j].text] && j+1 < len(lx) && lx[j+1].capital); j++ {
			if lx[j].capital {
				name = append(name, stem(lx[j].text))
			}
			orig = append(orig, lx[j].orig)
		}
		if j < len(lx) && lx[j].kind == 'w' && !lx[j].capital && (strings.HasSuffix(lx[j].text, "ed") && len(lx[j].text) > 4 || irregularPast[lx[j].text]) {
			out = append(out, binding{verb: stem(lx[j].text), agents: [][]string{name}, text: strings.Join(orig, " ") + " " + lx[j].orig})
		}
		i = j
	}
	return out
}

// sameAgent: two names share their last word (Zemeckis, Gaiman).
func sameAgent(a, b []string) bool {
	return len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1]
}

func bindsAgent(b binding, name []string) bool {
	return slices.ContainsFunc(b.agents, func(a []string) bool { return sameAgent(a, name) })
}

// roleConflict finds a binding of the statement that the sentence
// contradicts: the sentence binds the statement's verb to others only and
// the statement's name to another verb.
func roleConflict(st, cs *span) (string, bool) {
	if st.hasHan || cs.hasHan || !strings.Contains(cs.text, " by ") {
		return "", false
	}
	slx := lexemes(stripMarkup(st.text))
	claims := append(passiveBindings(slx), activeBindings(slx)...)
	if len(claims) == 0 {
		return "", false
	}
	given := passiveBindings(lexemes(stripMarkup(withParenthesis(cs))))
	// Prose binds a few roles a sentence; a text that binds hundreds is
	// a list, and comparing every claim with every binding of it would
	// cost the product of their numbers.
	if len(claims) > maxRoleBindings || len(given) > maxRoleBindings {
		return "", false
	}
	for _, c := range claims {
		for _, name := range c.agents {
			var same, other *binding
			for i := range given {
				g := &given[i]
				switch {
				case g.verb == c.verb && bindsAgent(*g, name):
					same = g
				case g.verb == c.verb && same == nil:
					other = g
				}
			}
			if same != nil || other == nil {
				continue
			}
			for _, g := range given {
				if g.verb != c.verb && bindsAgent(g, name) {
					return fmt.Sprintf("statement says %q where the context says %q and %q", c.text, other.text, g.text), true
				}
			}
		}
	}
	return "", false
}
