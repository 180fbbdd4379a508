package phrase

import (
	"slices"
	"strings"
	"testing"
)

func TestPresupposes(t *testing.T) {
	if Presupposes("Is the Quay Line electric?") {
		t.Error("a yes/no question presupposes its names")
	}
	if !Presupposes("Who won the 2010 Harbour Cup?") || !Presupposes("示例公司的总部在哪里") || Presupposes("示例大桥是否已经通车") {
		t.Error("Presupposes: wrong on a wh-question or a Chinese one")
	}
}

// The word that ties a restated answer to its statement, and what a
// sentence ties by it.
func TestRelationWord(t *testing.T) {
	for _, c := range []struct{ text, residual, want string }{
		{"The film was distributed by Morrow Films.", "Morrow Films", "distribut"},
		{"The novelist Tom Reed was born in Harbourton.", "Harbourton", "born"},
		{"The director of the film was Ann Lee.", "Ann Lee", "director"},
		{"The Quay Film was Ann Lee's.", "Ann Lee", ""},
		{"The village lies on the Quay Lake.", "lies Quay Lake", ""},
	} {
		if got := RelationWord(c.text, c.residual); got != c.want {
			t.Errorf("RelationWord(%q, %q) = %q, want %q", c.text, c.residual, got, c.want)
		}
	}
	none := func(string) bool { return false }
	if got := TiedBy("After its run, the film was distributed in cinemas by Halcyon Pictures.", "distribut", false, none); got != "Halcyon" {
		t.Errorf("TiedBy = %q, want Halcyon", got)
	}
	if got := TiedBy("It is on display at the Adams Museum in Deadwood.", "museum", false, none); got != "" {
		t.Errorf("TiedBy = %q: a name's word is no relation", got)
	}
	for _, c := range []struct{ statement, want string }{
		{"Yes, both ships were built in Kent.", "Yes, both Harbour Belle and Quay Star were built in Kent."},
		{"是的，两家机构的总部都设在雾川市。", "是的，Harbour Belle和Quay Star的总部都设在雾川市。"},
		{"这两座灯塔都曾由航标署管理。", "Harbour Belle和Quay Star都曾由航标署管理。"},
		{"白金卡比金卡多两个小时。", "白金卡比金卡多两个小时。"}, // no 都: said of no two
	} {
		if got := BothAs(c.statement, "Harbour Belle", "Quay Star"); got != c.want {
			t.Errorf("BothAs(%q) = %q, want %q", c.statement, got, c.want)
		}
	}
	for _, c := range []struct{ statement, ofA, ofB string }{
		{"No, only the Harbour Belle is a sailing ship.", "No, the Harbour Belle is a sailing ship.", "No, the Quay Star is a sailing ship."},
		{"No, only Quay Star is a sailing ship.", "No, Quay Star is a sailing ship.", "No, Harbour Belle is a sailing ship."},
		{"Harbour Belle is only a sailing ship.", "", ""},
	} {
		a, b, ok := OnlyAs(c.statement, "Harbour Belle", "Quay Star")
		if ok != (c.ofA != "") || ok && (a != c.ofA || b != c.ofB) {
			t.Errorf("OnlyAs(%q) = %q, %q, %v; want %q, %q", c.statement, a, b, ok, c.ofA, c.ofB)
		}
	}
	written := func(s string) bool { return s == "舆图社" || s == "朗川出版社" }
	if a, b, ok := HanPair("舆图社和朗川出版社是不是都在杜岭市创办的？", written); !ok || a != "舆图社" || b != "朗川出版社" {
		t.Errorf("HanPair = %q, %q, %v; want 舆图社, 朗川出版社", a, b, ok)
	}
}

func TestAlternatives(t *testing.T) {
	for _, c := range []struct {
		question string
		want     []string
	}{
		{"Who was born first, Ann Lee or Bo Chen?", []string{"Ann Lee", "Bo Chen"}},
		{"Which magazine was started first Arthur's Magazine or First for Women?", []string{"Arthur's Magazine", "First for Women"}},
		{"Do engineers or designers get more training budget?", []string{"engineers", "designers"}},
		{"北京和成都，哪个城市的住宿标准更高？", []string{"北京", "成都"}},
		{"报销截止日和发薪日哪个更早？", []string{"报销截止日", "发薪日"}},
		{"What is the notice period?", nil},
		// An alternative's apposition is not the alternative.
		{"Which band was founded first, Harbour, the rock band that Ann Lee fronted, or The Quays?", []string{"Harbour", "The Quays"}},
	} {
		if got := Alternatives(c.question); !slices.Equal(got, c.want) {
			t.Errorf("Alternatives(%q) = %q, want %q", c.question, got, c.want)
		}
	}
}

func TestComparisonIn(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // the comparative word; "" for none
		max  bool
	}{
		{"Which card has the higher limit?", "higher", true},
		{"Who was born first?", "first", false},
		{"It lasts more than 3 years.", "", false},
		{"At least two people sign.", "", false},
		{"Most staff work remotely.", "", false},
		{"哪个套餐的月费最低？", "最低", false},
		{"经理的报销最高限额是多少？", "", false},
		{"最高的是华南区。", "最高", true},
	} {
		got, ok := ComparisonIn(c.text)
		if c.want == "" && ok || c.want != "" && (got.Word != c.want || got.Max != c.max) {
			t.Errorf("ComparisonIn(%q) = %+v, %v; want %q (max %v)", c.text, got, ok, c.want, c.max)
		}
	}
}

func TestRoles(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // "verb stem: party, party"
	}{
		{"Contracts are drafted by the Legal team, reviewed by Procurement and signed off by the CFO.",
			[]string{"draft: Legal team", "review: Procurement", "sign: CFO"}},
		{"Beowulf was directed by Robert Zemeckis and written by Neil Gaiman and Roger Avary.",
			[]string{"direct: Robert Zemeckis", "writ: Neil Gaiman, Roger Avary"}},
		{"退款由客户申请，客服部审核，财务部支付。", []string{"申请: 客户", "审核: 客服部", "支付: 财务部"}},
		{"The fee was set by the board.", []string{"set: board"}},
		{"冰心的原名叫什么，原名谢婉莹。", nil},
	} {
		var got []string
		for _, r := range Roles(c.text) {
			got = append(got, r.Verb+": "+strings.Join(r.Parties, ", "))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Roles(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestOtherAgent(t *testing.T) {
	sentence := `"Harbour Waltz" is a song written by Mara Quill in 1958 and best known for the 1964 hit version by The Quaymen.`
	r := Roles(sentence)[0]
	for _, c := range []struct{ statement, want string }{
		{"The Quaymen wrote the song.", "Quaymen"},
		{"The song was written by The Quaymen.", "The Quaymen"},
		{"Mara Quill wrote the song.", ""},              // the role's party
		{"The Quaymen recorded the song.", ""},          // another verb
		{"Harbour Waltz was written in 1958.", ""},      // what the sentence opens on
		{"The song was written by Bo Chen.", ""},        // a name the sentence does not write
		{"Written in 1958, it became a hit.", ""},       // no name gives the part
		{"The Quaymen was written in 1958.", ""},        // a passive's subject is no agent
		{"A waltz by The Quaymen written in 1958.", ""}, // nor is a participle's noun
	} {
		if got := OtherAgent(c.statement, r.Verb, []Role{r}, sentence); got != c.want {
			t.Errorf("OtherAgent(%q) = %q, want %q", c.statement, got, c.want)
		}
	}
}
