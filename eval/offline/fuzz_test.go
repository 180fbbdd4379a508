package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// FuzzJudge feeds the offline judge arbitrary texts: its sentence
// splitting, record reading, yes/no, bridge and comparison rules are
// heuristics over user text, and none of them may panic or answer with
// the wrong number of verdicts, whatever the dataset holds.
func FuzzJudge(f *testing.F) {
	for _, seed := range [][3]string{
		{"Which magazine was started first, Alpha Weekly or Beta Monthly?", "Alpha Weekly was started first.", "Alpha Weekly (1844–1846) was a periodical.\nBeta Monthly was founded in 1989."},
		{"Who is older, Ann Lee or Bo Chen?", "Bo Chen", "Ann Lee (born 4 May 1950) is a painter. Bo Chen (born 2 June 1960) is a poet; he lives in Hull."},
		{"Are both Elmfield and Carrow towns?", "No.", "Elmfield is a town in Carrow. It is small."},
		{"Who represents the district that Elmfield is in?", "Mara Quill represents the district that Elmfield is in.", "Elmfield is in Carrow. Carrow is represented by Mara Quill."},
		{"票价多少？", "答案是480塔卡。", "- 运营商: 国家客运; 票价: 480塔卡; 发车: 07:00, 18:00\n| 线路 | 票价 |\n|---|---|\n| 3号线 | 2元 |"},
		{"Is plan A cheaper than plan B?", "Yes, plan A is cheaper than plan B by $3.", "Plan A costs $5 a month. Plan B costs $8 a month (since 2021-03-01)."},
		{"", "\u202e\x1b[2J(((", "(( ; ; |||\n\n: :"},
		{"Do Ann Lee and Bo Chen have the same nationality?", "no", "Ann Lee (painter; born 1950) is an American painter. She lives in Leeds.\n\nRobert Swan, better known as Bo Chen, is a Scottish-Australian poet."},
		{"Which band was formed first, Harbour, the band that Ann Lee fronted, or The Quay?", "The Quay was formed first.", "Harbour is a band. The band was formed in 1989.\n\nSet in Dover, the series is filmed in Leeds. Self-released in 2004, it features The Quay."},
		{"What items must visitors bring?", "Visitors must bring items numbering 4: laptop, charger, umbrella and snacks.", "Visitors must bring the following items:\n- passport\n- visa letter\n- return ticket"},
		{"进入洁净区要穿戴什么？一共几样？", "进入洁净区必须穿戴4样：无尘帽、防护眼镜、无尘服和洁净鞋。以及手套。", "进入洁净区必须穿戴以下用品：无尘帽、防护眼镜、无尘服、洁净鞋。\n\n洁净区每日消毒两次。"},
		{"经理去上海出差住宿标准是多少？", "经理去上海出差，住宿标准为每晚800元，比其他城市贵250元。", "| 职级 | 北京/上海/深圳 | 其他城市 |\n|---|---|---|\n| 经理 | 800元/晚 | 550元/晚 |\n| 普通员工 | 600元/晚 | 400元/晚 |\n\n开户行及账号: 招商银行上海张江支行; 税号: 91310000"},
		{"What does a bag cost?", "The bag costs EUR 60 online and EUR 40 at the airport, EUR 100 for both.", "A bag (up to 23 kg) can be added online for EUR 40.\n\nIt can be bought at the airport for EUR 60; 48 hours before departure it costs more."},
		{"Do both Quaya and Harbouria belong to the family Araceae?", "No, Harbouria belongs to the family Fabaceae, and 22nd season.", "Harbouria ( ; ] ; 1889) is a genus in the family Fabaceae."},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, question, answer, chunks string) {
		s := &eval.Sample{Question: question, Answer: answer, Contexts: strings.Split(chunks, "\n\n"), Reference: answer}
		j := New()
		ctx := context.Background()
		st, err := j.Statements(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := j.Verdicts(ctx, s, st)
		if err != nil || len(vs) != len(st) {
			t.Fatalf("%d statements, %d verdicts, %v", len(st), len(vs), err)
		}
		for _, v := range vs {
			if v.Verdict != 0 && v.Verdict != 1 {
				t.Fatalf("verdict %d", v.Verdict)
			}
		}
		es, err := j.Entailment(ctx, s, chunks, st)
		if err != nil || len(es) != len(st) {
			t.Fatalf("entailment: %d statements, %d verdicts, %v", len(st), len(es), err)
		}
		if _, err := j.Classify(ctx, s); err != nil && eval.StatusOf(err) != eval.StatusMissingInput {
			t.Fatal(err)
		}
		if _, err := j.Entities(ctx, s, chunks); err != nil {
			t.Fatal(err)
		}
	})
}

// A dataset's text may be hostile: parentheses nested without end, a
// question of endless ", or", chunks of endless "Yes! and" or "Mr.". The
// judge's work on it must grow with its length, not its square. Each of
// these once did grow with the square, and at these sizes took 34–56 s
// (measured with each fix taken out): the semicolon rule marked every rune
// of every nested pair, the apposition of an alternative was looked for
// back to the question's start from every "or", and a sentence UAX #29 cut
// too early was joined by copying all of it again for each segment.
// The bound is on the process's CPU time, which other processes on a
// loaded machine do not stretch as they stretch the wall clock: linear,
// each stays well under it even with the race detector, and the quadratic
// ones cross it by more than twice.
func TestHostileTextIsLinear(t *testing.T) {
	nested := "Ann Lee " + strings.Repeat("(", 400000) + "a; b" + strings.Repeat(")", 400000) + " is a painter; she lives in Hull."
	var pl strings.Builder // a chunk of 20,000 places, each in a region of its own
	for i := range 20000 {
		fmt.Fprintf(&pl, "Ann lives in Pl%d, Rg%d. Bo met Pl%d there. ", i, i, i)
	}
	places := pl.String()
	for _, s := range []*eval.Sample{
		{Question: "Who is Ann Lee (a (b (c)))?", Answer: "Ann Lee " + strings.Repeat("(", 50000) + "is a painter.",
			Contexts: []string{nested}, Reference: "Ann Lee is a painter."},
		{Question: "Which is first, " + strings.Repeat("x, or ", 150000) + "Bo Chen?", Answer: "Ann Lee is first.",
			Contexts: []string{"Ann Lee (born 1950) is a painter."}, Reference: "Ann Lee"},
		{Question: "Who is Ann Lee?", Answer: "Ann Lee is a painter.", Contexts: []string{strings.Repeat("Yes! and ", 300000)}, Reference: "Ann Lee"},
		{Question: "Who is Ann Lee?", Answer: "Ann Lee is a painter.", Contexts: []string{strings.Repeat("Mr. ", 400000)}, Reference: "Ann Lee"},
		// Sentences that give the answer, and others that mention the
		// premise, none tied: every pair of them may be tried.
		{Question: "Which painter founded the Harbour Trust in Kent?", Answer: "Ann Lee founded the Harbour Trust in Kent.",
			Contexts: []string{strings.Repeat("Ann Lee founded a school. The Harbour Trust in Kent hosted Bo Chen. \"Tide\" was released by Cy Dunn. ", 6000)}, Reference: "Ann Lee"},
		{Question: "Ann lives in which town?", Answer: "Ann lives in Reading.", Contexts: []string{places}, Reference: "Reading"},
		{Question: "Which band has more members, Harbour or Quay?", Answer: "Harbour has more members.", Contexts: []string{"Harbour " + strings.Repeat("consists ( ", 100000)}, Reference: "Harbour"},
		// Ever so many records whose named field holds another value.
		{Question: "Who has the laptop?", Answer: "The laptop is assigned to Bo Chen.",
			Contexts: []string{strings.Repeat("Assigned to: Ann Lee\nPrevious holder: Bo Chen\n\n", 20000)}, Reference: "Ann Lee"},
		// One sentence that gives a quantity to ever so many parties.
		{Question: "How long is the allowance for managers?", Answer: "Managers get an allowance of 5 days.",
			Contexts: []string{"The allowance is " + strings.Repeat("5 days for staff, 9 days for managers, ", 40000) + "and 3 days for interns."}, Reference: "9 days"},
		{Question: "Who produced the film?", Answer: "The film was " + strings.Repeat("produced by Ann Lee and directed by Bo Chen and ", 20000) + "released.",
			Contexts: []string{"The film was " + strings.Repeat("produced by Ann Lee and directed by Bo Chen and ", 20000) + "released."}, Reference: "Ann Lee"},
	} {
		j := New()
		start := cpuTime()
		st, err := j.Statements(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if vs, err := j.Verdicts(context.Background(), s, st); err != nil || len(vs) != len(st) {
			t.Fatalf("%d statements, %d verdicts, %v", len(st), len(vs), err)
		}
		d := cpuTime() - start
		t.Logf("%d-byte sample: %s of CPU", len(s.Question)+len(s.Answer)+len(s.Contexts[0]), d)
		if d > 15*time.Second {
			t.Errorf("the judge took %s on a %d-byte sample", d, len(s.Question)+len(s.Answer)+len(s.Contexts[0]))
		}
	}
}
