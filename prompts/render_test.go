package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// taxData is the motivating case of the project: an answer that contradicts
// the retrieved policy.
func taxData(lang string) Data {
	if lang == "zh" {
		return Data{
			Question:  "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？",
			Answer:    "会变。转为一般纳税人后需要重新办理税务登记，\n并领取新的纳税人识别号。",
			Reference: "不会变，纳税人识别号保持不变。",
			Contexts: []string{
				"纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变。",
				"一般纳税人取得的增值税专用发票可以抵扣进项税额。\n抵扣须在规定期限内认证。",
			},
			Statements: []string{
				"企业转为一般纳税人后需要重新办理税务登记。",
				"企业转为一般纳税人后会领取新的纳税人识别号。",
			},
			ReferenceStatements: []string{"纳税人识别号保持不变。", "转登记无须重新办理税务登记。"},
			Chunk:               "纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变。",
			Rank:                1,
			Text:                "不会变，纳税人识别号保持不变。依据《增值税一般纳税人登记管理办法》，2018年2月1日起施行。",
			Criterion:           "回答引用了具体的制度条款。",
			Levels:              []Level{{1, "答非所问。"}, {2, "结论正确，但没有依据。"}, {3, "结论正确，并引用了条款。"}},
			Items:               []string{"回答给出了明确的结论。", "回答说明了依据的制度。"},
		}
	}
	return Data{
		Question:  "Does the taxpayer ID change after converting to a general VAT taxpayer?",
		Answer:    "Yes. After the conversion the company must re-register\nand receives a new taxpayer ID.",
		Reference: "No, the taxpayer identification number stays the same.",
		Contexts: []string{
			"A taxpayer converting from small-scale to general VAT taxpayer keeps its taxpayer identification number.",
			"General taxpayers may deduct input VAT shown on special VAT invoices.\nInvoices must be verified in time.",
		},
		Statements: []string{
			"The company must re-register after converting to a general VAT taxpayer.",
			"The company receives a new taxpayer ID after converting to a general VAT taxpayer.",
		},
		ReferenceStatements: []string{"The taxpayer identification number stays the same.", "No new registration is needed."},
		Chunk:               "A taxpayer converting from small-scale to general VAT taxpayer keeps its taxpayer identification number.",
		Rank:                1,
		Text:                "No, the taxpayer identification number stays the same under the\nState Taxation Administration rules of 1 February 2018.",
		Criterion:           "The answer cites the rule it relies on.",
		Levels:              []Level{{1, "Does not answer."}, {2, "Right conclusion, no basis."}, {3, "Right conclusion, rule cited."}},
		Items:               []string{"The answer gives a clear yes or no.", "The answer names the rule."},
	}
}

// conversationTasks are the tasks that show a conversation's history; the
// tests give them one (withHistory). faithfulness_statements shows it too
// when there is one, and is tested with and without (TestStatementsHistory).
var conversationTasks = map[string]bool{TaskConversationStandalone: true, TaskConversationHistoryVerdict: true}

// taxHistory is the turn before the question of taxData.
func taxHistory(lang string) []Turn {
	if lang == "zh" {
		return []Turn{{N: 1, User: "我们公司是小规模纳税人，\n下个月转为一般纳税人。", Assistant: "好的，转登记后按一般计税方法计税。",
			Chunks: []string{"纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变。", "转登记后可以抵扣进项税额。"}}}
	}
	return []Turn{{N: 1, User: "We are a small-scale taxpayer,\nconverting to general VAT taxpayer next month.", Assistant: "Fine: after the conversion you use the general method.",
		Chunks: []string{"A taxpayer converting from small-scale to general VAT taxpayer keeps its taxpayer identification number.", "Input VAT becomes deductible."}}}
}

// withHistory gives d the conversation a conversation task shows.
func withHistory(task, lang string, d Data) Data {
	if conversationTasks[task] {
		d.History = taxHistory(lang)
		if strings.HasPrefix(d.Question, "question: ") { // hostileData: the payload in the history too
			payload := strings.TrimPrefix(d.Question, "question: ")
			for i := range d.History {
				d.History[i].User = "user: " + payload
				d.History[i].Assistant = "assistant: " + payload
				d.History[i].Chunks = []string{"retrieved one: " + payload, "retrieved two: " + payload}
			}
		}
	}
	return d
}

// tagged is how the helpers show a piece of plain (already trimmed, no "<")
// content, written out independently of them.
func tagged(tag, attrs, text string) string {
	if strings.Contains(text, "\n") {
		text = "\n" + text + "\n"
	}
	return "<" + tag + attrs + ">" + text + "</" + tag + ">"
}

// shown lists, per task, which inputs the built-in template must put in
// front of the judge, each in its delimited block.
func shown(task string, d Data) []string {
	q, a, ref := tagged("question", "", d.Question), tagged("answer", "", d.Answer), tagged("reference", "", d.Reference)
	chunks := []string{tagged("chunk", ` n="1"`, d.Contexts[0]), tagged("chunk", ` n="2"`, d.Contexts[1])}
	switch task {
	case TaskFaithfulnessStatements:
		return []string{q + "\n", a + "\n"}
	case TaskFaithfulnessVerdicts:
		return []string{
			"\n" + chunks[0] + "\n" + chunks[1] + "\n",
			"\n" + tagged("statement", ` n="1"`, d.Statements[0]) + "\n" + tagged("statement", ` n="2"`, d.Statements[1]) + "\n",
		}
	case TaskAnswerRelevancyQuestion:
		return []string{a + "\n"}
	case TaskContextPrecisionVerdict:
		return []string{q, ref, tagged("chunk", "", d.Chunk)}
	case TaskContextRecallClassifications:
		return []string{q, ref, "\n" + chunks[0] + "\n" + chunks[1] + "\n"}
	case TaskContextUtilizationVerdict:
		return []string{q, a, tagged("chunk", "", d.Chunk)}
	case TaskContextEntityRecallEntities:
		return []string{tagged("text", "", d.Text) + "\n"}
	case TaskCriterionYesNo:
		return []string{tagged("criterion", "", d.Criterion), q, a, "\n" + chunks[0] + "\n" + chunks[1] + "\n", ref}
	case TaskCriterionRubric:
		return []string{tagged("criterion", "", d.Criterion), q, a, ref,
			tagged("level", ` score="1"`, d.Levels[0].Description) + "\n" + tagged("level", ` score="2"`, d.Levels[1].Description)}
	case TaskCriterionChecklist:
		return []string{q, a, ref, tagged("item", ` n="1"`, d.Items[0]) + "\n" + tagged("item", ` n="2"`, d.Items[1]) + "\n"}
	case TaskConversationStandalone:
		h := d.History[0]
		return []string{tagged("user", ` n="1"`, h.User) + "\n" + tagged("assistant", ` n="1"`, h.Assistant) + "\n", q + "\n"}
	case TaskConversationHistoryVerdict:
		h := d.History[0]
		return []string{tagged("user", ` n="1"`, h.User) + "\n" + tagged("assistant", ` n="1"`, h.Assistant) + "\n" +
			tagged("retrieved", ` n="1"`, h.Chunks[0]) + "\n" + tagged("retrieved", ` n="1"`, h.Chunks[1]) + "\n", q + "\n",
			"\n" + tagged("statement", ` n="1"`, d.Statements[0]) + "\n" + tagged("statement", ` n="2"`, d.Statements[1]) + "\n"}
	case TaskEntailmentVerdicts:
		return []string{"\n" + tagged("text", "", d.Text) + "\n",
			"\n" + tagged("statement", ` n="1"`, d.Statements[0]) + "\n" + tagged("statement", ` n="2"`, d.Statements[1]) + "\n"}
	}
	return nil
}

func TestEmbeddedRender(t *testing.T) {
	s := Embedded()
	for _, task := range Tasks {
		for _, lang := range Langs {
			t.Run(task+"."+lang, func(t *testing.T) {
				d := withHistory(task, lang, taxData(lang))
				out, err := s.Render(task, lang, d)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range shown(task, d) {
					if !strings.Contains(out, want) {
						t.Errorf("rendered prompt lacks %q", want)
					}
				}
				if strings.Contains(out, "<no value>") || strings.Contains(out, "{{") {
					t.Errorf("rendered prompt has template residue:\n%s", out)
				}
				if task == TaskAnswerRelevancyQuestion && strings.Contains(out, d.Question) {
					t.Errorf("the question must not be shown to the question generator")
				}
				if (task == TaskContextPrecisionVerdict || task == TaskContextUtilizationVerdict) && strings.Contains(out, "rank") {
					t.Errorf("the chunk's rank must not be shown (it would bias the verdict and split the cache)")
				}
				again, _ := s.Render(task, lang, d)
				if again != out {
					t.Errorf("rendering is not deterministic")
				}
				checkGolden(t, filepath.Join("testdata", "render", task+"."+lang+".golden"), out)
			})
		}
	}
}

func TestVerdictsNumbersEveryStatement(t *testing.T) {
	for _, lang := range Langs {
		for _, n := range []int{1, 2, 7, 12} {
			d := taxData(lang)
			d.Statements = nil
			for i := range n {
				d.Statements = append(d.Statements, "statement "+string(rune('a'+i))+"\nwith a second line")
			}
			out, err := Embedded().Render(TaskFaithfulnessVerdicts, lang, d)
			if err != nil {
				t.Fatal(err)
			}
			// Only the real input's list, after the worked examples.
			tail := out[strings.LastIndex(out, "</example>"):]
			got := regexp.MustCompile(`(?m)^<statement n="(\d+)">\nstatement ([a-z])\nwith a second line\n</statement>$`).FindAllStringSubmatch(tail, -1)
			if len(got) != n {
				t.Fatalf("%s n=%d: found %d numbered statements in\n%s", lang, n, len(got), tail)
			}
			for i, m := range got {
				if m[1] != strconv.Itoa(i+1) || m[2] != string(rune('a'+i)) {
					t.Errorf("%s: item %d rendered as %q", lang, i+1, m[0])
				}
			}
			if !strings.Contains(out, strconv.Itoa(n)+" ") {
				t.Errorf("%s: the expected count %d is not stated", lang, n)
			}
		}
	}
}

// Every worked example must be a reply the contract accepts: a judge copies
// the examples' shape, so a drifted example teaches it to fail validation.
func TestExamplesFollowTheContract(t *testing.T) {
	for _, task := range Tasks {
		for _, lang := range Langs {
			out, err := Embedded().Render(task, lang, withHistory(task, lang, taxData(lang)))
			if err != nil {
				t.Fatal(err)
			}
			examples := 0
			for _, line := range strings.Split(out, "\n") {
				var js string
				if rest, ok := strings.CutPrefix(line, "Output:"); ok {
					js = strings.TrimSpace(rest)
				} else if rest, ok := strings.CutPrefix(line, "输出："); ok {
					js = strings.TrimSpace(rest)
				}
				if js == "" {
					continue
				}
				examples++
				if err := ValidateReply(task, js); err != nil {
					t.Errorf("%s.%s example %d: %v", task, lang, examples, err)
				}
			}
			if examples < 2 || examples > 3 {
				t.Errorf("%s.%s has %d worked examples, want 2-3", task, lang, examples)
			}
			if !strings.HasSuffix(strings.TrimSpace(out), "Output:") && !strings.HasSuffix(strings.TrimSpace(out), "输出：") {
				t.Errorf("%s.%s should end by asking for the output", task, lang)
			}
		}
	}
}

func TestEveryTemplateAsksForTheInputLanguage(t *testing.T) {
	for _, task := range Tasks {
		for _, lang := range Langs {
			src, err := Embedded().Source(task, lang)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"en": "in the language of the", "zh": "语言"}[lang]
			if !strings.Contains(src, want) {
				t.Errorf("%s.%s does not tell the judge to write in the language of the input", task, lang)
			}
		}
	}
}

func TestRenderErrors(t *testing.T) {
	s := Embedded()
	tests := []struct {
		task, lang, want string
	}{
		{"faithfulness", "en", `unknown task "faithfulness"`},
		{TaskFaithfulnessStatements, "de", `unknown language "de"`},
		{TaskFaithfulnessStatements, "", `unknown language ""`},
	}
	for _, tt := range tests {
		_, err := s.Render(tt.task, tt.lang, Data{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Render(%q, %q) error = %v, want %q", tt.task, tt.lang, err, tt.want)
		}
		if _, err := s.Source(tt.task, tt.lang); err == nil {
			t.Errorf("Source(%q, %q) accepted", tt.task, tt.lang)
		}
	}
}

// text/template fails at execution on a field Data does not have; this
// guards against a change (map data, a missing option) that would make it
// print "<no value>" and send that to the judge.
func TestExecutionFailsOnUnknownField(t *testing.T) {
	for _, src := range []string{"Q: {{.Foo}}", "{{range .Contexts}}{{.Bar}}{{end}}"} {
		tm, err := parseTemplate("x.en.tmpl", src)
		if err != nil {
			t.Fatal(err)
		}
		e := &entry{tmpl: tm}
		out, err := e.execute(taxData("en"))
		if err == nil {
			t.Fatalf("%q rendered %q, want an error", src, out)
		}
		if !strings.HasPrefix(err.Error(), "x.en.tmpl:1:") {
			t.Errorf("error %q does not start with file:line", err)
		}
	}
}

func TestConcurrentRender(t *testing.T) {
	s := Embedded()
	want, _ := s.Render(TaskFaithfulnessVerdicts, "zh", taxData("zh"))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := s.Render(TaskFaithfulnessVerdicts, "zh", taxData("zh"))
				if err != nil || got != want {
					t.Errorf("concurrent render differs: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./prompts -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendered prompt (run go test ./prompts -update after checking the change):\n%s", path, got)
	}
}

// faithfulness_statements shows a conversation's earlier turns when the
// sample has them, and renders as it always did when it has none: the
// prompt of a single-turn sample, and so its cache key, is unchanged.
func TestStatementsHistory(t *testing.T) {
	for _, lang := range Langs {
		d := taxData(lang)
		plain, err := Embedded().Render(TaskFaithfulnessStatements, lang, d)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plain, "<user") || strings.Contains(plain, "<assistant") {
			t.Errorf("%s: a single-turn render mentions the history:\n%s", lang, plain)
		}
		d.History = taxHistory(lang)
		conv, err := Embedded().Render(TaskFaithfulnessStatements, lang, d)
		if err != nil {
			t.Fatal(err)
		}
		h := d.History[0]
		want := tagged("user", ` n="1"`, h.User) + "\n" + tagged("assistant", ` n="1"`, h.Assistant) + "\n"
		if !strings.Contains(conv, want) || strings.Contains(conv, h.Chunks[0]) {
			t.Errorf("%s: the history is not shown as its turns (without their chunks):\n%s", lang, conv)
		}
		if conv == plain {
			t.Errorf("%s: the history changes nothing", lang)
		}
		p := parsePrompt(t, conv)
		if n := len(p.input); n != 4 {
			t.Errorf("%s: %d input blocks with a one-turn history, want user, assistant, question, answer", lang, n)
		}
		checkGolden(t, filepath.Join("testdata", "render", TaskFaithfulnessStatements+".history."+lang+".golden"), conv)
	}
}
