package cost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

func TestLookup(t *testing.T) {
	tab := Builtin()
	for _, tc := range []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true}, // a dated snapshot: the longest prefix, not gpt-4o
		{"GPT-4o", Price{2.50, 10.00}, true},
		{"openai/gpt-4.1-nano", Price{0.10, 0.40}, true},
		{"gpt-4o2", Price{}, false}, // a prefix must end at a "-"
		{"qwen2.5:7b", Price{}, false},
		{"", Price{}, false},
	} {
		got, ok := tab.Lookup(tc.model)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
	if c := (Price{Prompt: 2, Completion: 8}).Of(eval.Usage{PromptTokens: 500_000, CompletionTokens: 250_000}); c != 3 {
		t.Errorf("cost = %v, want 3", c)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"date": "2026-11-30", "models": {"qwen2.5": {"prompt": 0, "completion": 0}, "gpt-4o-mini": {"prompt": 0.1, "completion": 0.5}}}`)
	tab, err := Load(good, true)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := tab.Lookup("gpt-4o-mini"); p != (Price{0.1, 0.5}) {
		t.Errorf("override not applied: %v", p)
	}
	if _, ok := tab.Lookup("qwen2.5-7b"); !ok {
		t.Error("added model not found")
	}
	if _, ok := tab.Lookup("gpt-4.1"); !ok {
		t.Error("built-in model lost by the override")
	}
	if !strings.Contains(tab.Source, good) || !strings.Contains(tab.Source, "2026-11-30") {
		t.Errorf("source %q does not name the file and its date", tab.Source)
	}
	if _, err := Load(filepath.Join(dir, "absent.json"), false); err != nil {
		t.Errorf("a missing optional file: %v", err)
	}
	for name, tc := range map[string]struct{ body, want string }{
		"required missing": {"", "reading the price table"},
		"bad json":         {`{"models": `, "bad json.json"},
		"unknown field":    {`{"model": {}}`, `unknown field "model"`},
		"syntax, by line":  {"{\"models\": {\n  \"m\": {\"prompt\": 1,}\n}}", "syntax, by line.json:2: invalid character '}'"},
		"type, by line":    {"{\"models\": {\n\n  \"m\": {\"prompt\": \"1\"}}}", "type, by line.json:3: json: cannot unmarshal string"},
		"negative":         {`{"models": {"m": {"prompt": -1}}}`, "models.m.prompt is -1"},
	} {
		p := filepath.Join(dir, "absent-"+name)
		if tc.body != "" {
			p = write(name+".json", tc.body)
		}
		_, err := Load(p, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", name, err, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		model, text string
		want        int
		exact       bool
	}{
		// Counts from OpenAI's tokenizers (tiktoken): "hello world" is two
		// tokens in both vocabularies.
		{"gpt-4o-mini", "hello world", 2, true},
		{"gpt-3.5-turbo", "hello world", 2, true},
		{"text-embedding-3-small", "hello world", 2, true},
		{"llama3.1:8b", "hello world", 3, false}, // 11 bytes / 4, rounded up
		{"llama3.1:8b", "埃菲尔铁塔", 5, false},
	} {
		c := For(tc.model)
		if got := c.Count(tc.text); got != tc.want || c.Exact() != tc.exact {
			t.Errorf("%s %q: %d (exact %v), want %d (exact %v)", tc.model, tc.text, got, c.Exact(), tc.want, tc.exact)
		}
	}
	if l := For("llama3").Label(); !strings.Contains(l, "estimated") {
		t.Errorf("label %q", l)
	}
	c := For("gpt-4o")
	msgs := []eval.Message{{Role: "system", Content: "hello world"}, {Role: "user", Content: "hello world"}}
	if got, want := c.Chat(msgs), 3+2*(3+1+2); got != want {
		t.Errorf("chat tokens %d, want %d", got, want)
	}
}

// The memo cuts texts after runs of newlines; on the built-in prompts,
// rendered in both languages, its counts are the tokenizer's.
func TestMemoCountsAsTheTokenizer(t *testing.T) {
	set := prompts.Embedded()
	data := map[string]prompts.Data{
		"en": {Question: "Who built the Eiffel Tower?\n\nAnd when?", Answer: "Gustave Eiffel's company built it.  \nIt opened in 1889.",
			Reference: "Eiffel's company; 1889.", Contexts: []string{"The tower was built by\n\n  Gustave Eiffel's company.", "It opened on 31 March 1889."},
			Statements: []string{"Eiffel's company built it.", "It opened in 1889."}, Chunk: "It opened on 31 March 1889.", Rank: 2},
		"zh": {Question: "我们公司从小规模纳税人转为一般纳税人后，纳税人识别号会变吗？", Answer: "会的，需要重新办理税务登记。\n\n请咨询。",
			Reference: "不会。", Contexts: []string{"小规模纳税人登记为一般纳税人后，纳税人识别号保持不变。", "一般纳税人资格自次月起生效。"},
			Statements: []string{"纳税人识别号会变更。"}, Chunk: "一般纳税人资格自次月起生效。", Rank: 1},
	}
	for _, model := range []string{"gpt-4o-mini", "gpt-3.5-turbo"} {
		c := For(model)
		m := c.Memo()
		for _, task := range prompts.Tasks {
			for _, lang := range prompts.Langs {
				text, err := set.Render(task, lang, data[lang])
				if err != nil {
					t.Fatal(err)
				}
				// Twice: the second count is all memo.
				for i := 0; i < 2; i++ {
					if got, want := m.Count(text), c.Count(text); got != want {
						t.Errorf("%s %s.%s: memo %d, tokenizer %d", model, task, lang, got, want)
					}
				}
			}
		}
		msgs := []eval.Message{{Role: "user", Content: "a\n\nb"}}
		if m.Chat(msgs) != c.Chat(msgs) {
			t.Errorf("%s chat: memo %d, tokenizer %d", model, m.Chat(msgs), c.Chat(msgs))
		}
	}
	est := For("llama3").Memo()
	if est.Count("hello world") != 3 || est.Exact() {
		t.Errorf("a model without a tokenizer: %d", est.Count("hello world"))
	}
}
