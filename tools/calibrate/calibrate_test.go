package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// excerptFloor is the pairwise accuracy measured on the 40-row HaluEval
// excerpt when the thresholds were chosen (34 wins, 6 ties = 0.925); a
// change to the judge that loses a pair there fails this test.
const excerptFloor = 0.925

func TestHaluEvalExcerptRegression(t *testing.T) {
	pairs, err := LoadHaluEval("../../testdata/halueval_excerpt.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 40 {
		t.Fatalf("excerpt has %d pairs, want 40", len(pairs))
	}
	r := PairwiseAccuracy("halueval excerpt", pairs)
	if r.Accuracy < excerptFloor {
		t.Errorf("pairwise accuracy on the HaluEval excerpt = %.3f (%d wins, %d ties), below the floor %.3f",
			r.Accuracy, r.Wins, r.Ties, excerptFloor)
	}
}

func TestPairwiseAccuracyCountsTiesHalfAndNoStatementsAsLosses(t *testing.T) {
	ctx := []string{"Polaris is based in Roseau, Minnesota, USA."}
	pairs := []Pair{
		{Question: "Where is Polaris based?", Contexts: ctx, Faithful: "Roseau, Minnesota", Unfaith: "Polaris is based in Michigan."}, // win
		{Question: "Where is Polaris based?", Contexts: ctx, Faithful: "Michigan is far away.", Unfaith: "Polaris is in Ohio."},       // tie 0-0
		{Question: "Where is Polaris based?", Contexts: ctx, Faithful: "?!", Unfaith: "Polaris is based in Roseau."},                  // no statements: a loss
		{Question: "Where is Polaris based?", Contexts: ctx, Faithful: "In Ohio.", Unfaith: "Polaris is based in Minnesota."},         // loss
	}
	r := PairwiseAccuracy("hand-made", pairs)
	if r.Pairs != 4 || r.Wins != 1 || r.Ties != 1 || r.Losses != 2 || r.Undefined != 1 || r.Accuracy != 0.375 {
		t.Errorf("PairwiseAccuracy = %+v, want 4 pairs, 1 win, 1 tie, 2 losses (1 without statements), accuracy 0.375", r)
	}
}

func TestLoadersReportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		load func(string) ([]Pair, error)
		body string
		want string
	}{
		{"halueval bad json", LoadHaluEval, `{"knowledge": "k", "question": "q", "right_answer": "a", "hallucinated_answer": "b"}` + "\n{oops\n", ":2: not a JSON object"},
		{"halueval missing field", LoadHaluEval, `{"knowledge": "k", "question": "q", "right_answer": "a"}` + "\n", `:1: field "hallucinated_answer" is missing`},
		{"wikieval no context", LoadWikiEval, `{"question": "Question: q", "answer": "Answer: a", "ungrounded_answer": "b", "context_v1": []}` + "\n", `:1: field "context_v1"`},
		{"rgb answer of wrong type", LoadRGBFact, `{"query": "q", "answer": 7, "fakeanswer": "b", "positive": ["p"]}` + "\n", `:1: field "answer" is neither`},
		{"rgb no passages", LoadRGBFact, `{"query": "q", "answer": "a", "fakeanswer": "b", "positive": []}` + "\n", `:1: field "positive"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tt.name, " ", "_")+".jsonl", tt.body)
			_, err := tt.load(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v, want one naming %s and containing %q", err, p, tt.want)
			}
		})
	}
	if _, err := Offline(filepath.Join(dir, "absent"), 0); err == nil || !strings.Contains(err.Error(), "--datasets") {
		t.Errorf("Offline on a missing directory: err = %v, want a hint about --datasets", err)
	}
}

func TestLoadersReadTheirShapes(t *testing.T) {
	dir := t.TempDir()
	wiki := filepath.Join(dir, "wiki.jsonl")
	os.WriteFile(wiki, []byte(`{"question": "Question: Who?", "answer": "Answer: Ann.", "ungrounded_answer": "Bob.", "context_v1": ["Ann did it."]}`+"\n\n"), 0o644)
	ps, err := LoadWikiEval(wiki)
	if err != nil || len(ps) != 1 || ps[0].Question != "Who?" || ps[0].Faithful != "Ann." || ps[0].Unfaith != "Bob." {
		t.Errorf("LoadWikiEval = %+v, %v", ps, err)
	}
	rgb := filepath.Join(dir, "rgb.jsonl")
	os.WriteFile(rgb, []byte(`{"query": "澳大利亚的首都在哪", "answer": [["堪培拉,Canberra"]], "fakeanswer": ["悉尼"], "positive": ["澳大利亚的首都是堪培拉。"]}`+"\n"), 0o644)
	ps, err = LoadRGBFact(rgb)
	if err != nil || len(ps) != 1 || ps[0].Faithful != "澳大利亚的首都在堪培拉。" || ps[0].Unfaith != "澳大利亚的首都在悉尼。" {
		t.Errorf("LoadRGBFact = %+v, %v", ps, err)
	}
}

func TestStateAnswer(t *testing.T) {
	tests := []struct{ q, a, want string }{
		{"香港第六届立法会选举有多少个议席？", "70", "香港第六届立法会选举有70个议席。"},
		{"2015赛季中超冠军是谁", "广州恒大", "2015赛季中超冠军是广州恒大。"},
		{"苏联解体在哪一年", "1991年", "苏联解体在1991年。"},
		{"速度与激情8什么时候在内地上映？", "2017年4月14日", "速度与激情8于2017年4月14日在内地上映。"},
		{"2020-2021赛季欧冠冠军", "切尔西", "2020-2021赛季欧冠冠军是切尔西。"},
	}
	for _, tt := range tests {
		if got := StateAnswer(tt.q, tt.a); got != tt.want {
			t.Errorf("StateAnswer(%q, %q) = %q, want %q", tt.q, tt.a, got, tt.want)
		}
	}
}

// The English declarative construction writes the sentence a generator
// would for the common shapes of question, not the question with the
// answer pasted over its interrogative ("Started first A or B was A.",
// "Both X and Y American : yes.").
func TestStateAnswerEnglish(t *testing.T) {
	tests := []struct{ q, a, want string }{
		{"Who acquired Harbour Air?", "Quay Group", "Quay Group acquired Harbour Air."},
		{"Who is the chair of the Quay Trust?", "Ann Lee", "The chair of the Quay Trust is Ann Lee."},
		{"What nationality was Ewan Harlow's wife?", "American", "Ewan Harlow's wife was American."},
		{"Which magazine was started first, Harbour Monthly or Quay Weekly?", "Harbour Monthly", "Harbour Monthly was started first."},
		{"Which magazine was started first Harbour Monthly or First for Women?", "First for Women", "First for Women was started first."},
		{"Who was inducted into the Hall of Fame, Ann Lee or Bo Chen?", "Bo Chen", "Bo Chen was inducted into the Hall of Fame."},
		{"Is Harbour Hospital or Quay Medical Center the largest hospital in Portland?", "Quay Medical Center", "Quay Medical Center is the largest hospital in Portland."},
		{"Are Ann Lee and Bo Chen both painters?", "yes", "Yes, Ann Lee and Bo Chen are both painters."},
		{"Are both the Harbour Band and the Quay Players American rock bands?", "no", "No, the Harbour Band and the Quay Players are not both American rock bands."},
		{"Did Ann Lee direct Night Shift?", "yes", "Yes, Ann Lee did direct Night Shift."},
		{"Ann Lee and Bo Chen, are Chilean?", "no", "No, not Ann Lee and Bo Chen Chilean."},
		{"The Harbour Trust consisted of what sailor born 4 May 1950", "Ann Lee", "The Harbour Trust consisted of Ann Lee born 4 May 1950."},
		// Alternatives that share their head noun, with their articles.
		{"Which was issued first the Quay Card or the Harbour card?", "Harbour card", "Harbour card was issued first."},
		{"Do musicians Ann Lee and Bo Chen have the same nationality?", "no", "No, musicians Ann Lee and Bo Chen do not have the same nationality."},
		{"The 1988 comedy Night Shift starred an actress who received a star on the Walk of Fame in what year?", "2006", "The 1988 comedy Night Shift starred an actress who received a star on the Walk of Fame in 2006."},
		{"Milhouse is a character that Matt Harlow named after whom?", "Richard Nixon", "Milhouse is a character that Matt Harlow named after Richard Nixon."},
		{"The Quay Line was the first railway to use what kind of track?", "standard gauge track", "The Quay Line was the first railway to use standard gauge track."},
		{"The single spent how many weeks at No. 1?", "nine", "The single spent nine weeks at No. 1."},
		{"Which tennis player won more titles, Ann Lee or Bo Chen?", "Bo Chen", "Bo Chen is the tennis player that won more titles."},
		{"In which game was Ann Lee named the most valuable player?", "the Harbour Cup", "Ann Lee was named the most valuable player in the Harbour Cup."},
		{"What year was the winner of the 2016 Harbour Prix born?", "1988", "The winner of the 2016 Harbour Prix was born in 1988."},
		{"What city are Harbour Hospital and Quay Medical Center located in?", "Portland", "Harbour Hospital and Quay Medical Center are located in Portland."},
		{"Where is the company that bought Harbour Air based?", "Portland", "The company that bought Harbour Air is based in Portland."},
		{"How old is the heroine of Night Shift?", "16", "The heroine of Night Shift is 16."},
		{"Who had a role in the series Night Shift?", "Bo Chen", "Bo Chen had a role in the series Night Shift."},
		{"Between Harbour Airport and Quay Airport, which one is in Tennessee?", "Quay Airport", "Quay Airport is in Tennessee."},
		{"Which of the following documents the history of the port: Harbour Days or The Quay?", "The Quay", "The Quay documents the history of the port."},
		{"Was the mayor who opened the Quay Bridge a democrat or a republican?", "democrat", "The mayor who opened the Quay Bridge was democrat."},
		{"Is Harbour Devices or Level 3 Communications headquartered further west?", "Harbour Devices", "Harbour Devices is headquartered further west."},
		{"What shopping mall is the largest in Kent, Harbour Mall or Quay Plaza?", "Quay Plaza", "Quay Plaza is the largest in Kent."},
		{"Harbour Cream is owned by a company that mainly sells what type or product?", "dairy products", "Harbour Cream is owned by a company that mainly sells dairy products."},
		{"What actor in the film Night Shift also had a role in the series Quay Street?", "Bo Chen", "Bo Chen is the actor in the film Night Shift that also had a role in the series Quay Street."},
		{"Which band was founded first, Hole, the rock band that Ann Lee was a frontwoman of, or The Wolfhounds?", "The Wolfhounds", "The Wolfhounds was founded first."},
		{"Which band was formed first, The Harbour Lights, the band that Ann Lee fronted, or The Quay?", "The Quay", "The Quay was formed first."},
		{"Which magazine was started first, Harbour Monthly, or Quay Weekly?", "Quay Weekly", "Quay Weekly was started first."},
		// A coordination is one interrogative phrase, up to a comma after
		// its last item.
		{"Night Shift is a novella by which Welsh writer, critic and poet?", "Ann Lee", "Night Shift is a novella by Ann Lee."},
		{"The club was based in which large village and civil parish in the north of Kent?", "Quayside", "The club was based in Quayside in the north of Kent."},
		{"The film also features which actor, singer, and dancer, best known for Harbour Days?", "Bo Chen", "The film also features Bo Chen best known for Harbour Days."},
		// A quoted title is no verb; a possessive wh-phrase keeps its noun.
		{"Which actor starring in \"Night Shift Is Over\" was born in Kent?", "Ann Lee", "Ann Lee is the actor starring in \"Night Shift Is Over\" that was born in Kent."},
		// A phrase that says more than the kind of thing asked is a
		// premise the restatement keeps; "which tennis player" is not.
		{"What poem by the writer born in 1872 was used in spoken word recordings?", "Harbour Days", "Harbour Days is the poem by the writer born in 1872 that was used in spoken word recordings."},
		{"Which tennis player was born in Kent?", "Ann Lee", "Ann Lee was born in Kent."},
		{"What the real name of the DJ who played in Kent?", "Bo Chen", "Bo Chen is the real name of the DJ who played in Kent."},
		{"What the real name of the DJ who was born in Kent?", "Bo Chen", "Bo Chen was born in Kent."},
		// The answer takes the place of a stranded preposition's object.
		{"What other band did Ann Lee tour with in 2010?", "The Quay", "Ann Lee did tour with The Quay in 2010."},
		{"The club was led by the coach who previously helmed which other team?", "Quay United", "The club was led by the coach who previously helmed Quay United."},
		{"Which band's song was used as the theme at the Quay Arena in 2006?", "Harbour", "Harbour's song was used as the theme at the Quay Arena in 2006."},
		{"Which genus of moth in the world's largest country contains one species?", "Harbouria", "Harbouria is the genus of moth in the world's largest country that contains one species."},
	}
	for _, tt := range tests {
		if got := StateAnswerEnglish(tt.q, tt.a); got != tt.want {
			t.Errorf("StateAnswerEnglish(%q, %q)\n got %q\nwant %q", tt.q, tt.a, got, tt.want)
		}
	}
	// An opening phrase before the comma is no subject.
	if got := StateAnswerEnglish("In Paris, was Ann Lee the winner?", "yes"); strings.HasPrefix(got, "Yes, In") {
		t.Errorf("StateAnswerEnglish moved the auxiliary after an opening phrase: %q", got)
	}
}
