// Package words holds the word lists of the offline judge, one a file,
// embedded: small and explicit, so a reason is predictable from them. One
// entry a line, in the order tried where it matters; # starts a comment.
package words

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed *.txt
var files embed.FS

// List is the list in <name>.txt; a missing one panics.
func List(name string) []string {
	b, err := files.ReadFile(name + ".txt")
	if err != nil {
		panic(fmt.Sprintf("offline: word list %s: %v", name, err))
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// Set is the list as a set.
func Set(name string) map[string]bool {
	m := map[string]bool{}
	for _, w := range List(name) {
		m[w] = true
	}
	return m
}

// Runes is the set of the characters of the list's entries.
func Runes(name string) map[rune]bool {
	m := map[rune]bool{}
	for _, r := range strings.Join(List(name), "") {
		m[r] = true
	}
	return m
}

// Map reads "key value" lines (number words: "three 3").
func Map(name string) map[string]string {
	m := map[string]string{}
	for _, l := range List(name) {
		k, v, ok := strings.Cut(l, " ")
		if !ok {
			panic(fmt.Sprintf("offline: word list %s: %q is no \"key value\" line", name, l))
		}
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// Alternatives is the list as a regular expression's alternation; its
// entries are written in that syntax ("kilometres?").
func Alternatives(name string) string { return strings.Join(List(name), "|") }
