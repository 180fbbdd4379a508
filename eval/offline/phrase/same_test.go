package phrase

import "testing"

func TestSamenessIn(t *testing.T) {
	for _, c := range []struct {
		text string
		want Sameness
		ok   bool
	}{
		{"Yes: Up and The Watercolor released in the same year", Sameness{A: "Up", B: "The Watercolor", Rel: "releas", Of: "year", Year: true}, true},
		{"No, Eatza Pizza and Your Pie were not founded in the same state.", Sameness{A: "Eatza Pizza", B: "Your Pie", Rel: "found", Of: "state", Differ: true}, true},
		{"Yes, the Tallow Creek mine and the Brannock mine are owned by the same company.", Sameness{A: "Tallow Creek", B: "Brannock", Rel: "own", Of: "company"}, true},
		{"No, the Selwyn Bridge was not designed by the same firm as the Carrick Lane Bridge.", Sameness{A: "Selwyn Bridge", B: "Carrick Lane Bridge", Rel: "design", Of: "firm", Differ: true}, true},
		{"Pam Veasey and Jon Jost have different nationalities.", Sameness{A: "Pam Veasey", B: "Jon Jost", Rel: "", Of: "nationalities", Differ: true}, true},
		{"不，疾风车队和红岩车队的注册地不相同。", Sameness{A: "疾风车队", B: "红岩车队", Of: "注册地", Differ: true}, true},
		{"是的，北岭铁路和南屏铁路的设计时速相同。", Sameness{A: "北岭铁路", B: "南屏铁路", Of: "设计时速"}, true},
		{"Both offices use the same VPN.", Sameness{}, false},
		{"The report was filed the same day.", Sameness{}, false},
	} {
		got, ok := SamenessIn(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("SamenessIn(%q) = %+v, %v; want %+v, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestSamenessNegationInItsClause(t *testing.T) {
	s, ok := SamenessIn("Although it is not large, Ada and Cy were born in the same city.")
	if !ok || s.Differ || s.A != "Ada" || s.B != "Cy" {
		t.Errorf("got %+v, %v", s, ok)
	}
}
