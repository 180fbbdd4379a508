package lex

import (
	"fmt"
	"testing"
)

func TestLexemes(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"纳税人Tax 2024-06-01", "h:纳税人 w:tax n:2024-06-01"},
		{"at 2012.12:01, 3.5%", "w:at n:2012 p:. n:12:01 p:, n:3.5 p:%"},
		{"not - so, don’t", "w:not p:- w:so p:, w:don't"},
	} {
		got := ""
		for _, l := range Lexemes(c.text) {
			if got != "" {
				got += " "
			}
			got += fmt.Sprintf("%c:%s", l.Kind, l.Text)
		}
		if got != c.want {
			t.Errorf("Lexemes(%q) = %s, want %s", c.text, got, c.want)
		}
	}
	lx := Lexemes("On 31 March 2025, May")
	if !lx[0].Capital || !MonthAt(lx, 2) || MonthAt(lx, 5) {
		t.Errorf("months: %+v", lx)
	}
	if DateUnit(lx, 1, "31") == "" || DateUnit(lx, 3, "2025") != "年" {
		t.Errorf("date units: %q %q", DateUnit(lx, 1, "31"), DateUnit(lx, 3, "2025"))
	}
}
