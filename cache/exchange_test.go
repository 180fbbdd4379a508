package cache

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func TestExportImportRoundTrip(t *testing.T) {
	src := openTemp(t)
	inner := &fakeInner{}
	c := src.Client(inner, ReadWrite)
	ctx := context.Background()
	var keys []string
	for i := 0; i < 5; i++ {
		req := chatReq("gpt-4o-mini", i)
		req.Temperature = 0.7 + float32(i)/10 // floats must survive the trip bit for bit
		if i == 3 {
			req.TopP, req.N = 0.95, 3
		}
		resp, err := c.Chat(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, resp.Key)
	}
	emb := eval.EmbedRequest{Endpoint: "api.openai.com/v1", Model: "text-embedding-3-small", Dimensions: 8, Texts: []string{"问题", "q2", "q3"}}
	first, err := c.Embed(ctx, emb)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range emb.Texts {
		keys = append(keys, eval.EmbedKey(emb.Endpoint, emb.Model, emb.Dimensions, text))
	}
	if err := src.PutRun(report.RunInfo{ID: "not-exported"}); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	n, err := src.Export(&buf)
	if err != nil || n != 8 {
		t.Fatalf("export: %d entries, %v; want 8", n, err)
	}
	if lines := strings.Count(buf.String(), "\n"); lines != 9 {
		t.Errorf("export has %d lines, want header + 8", lines)
	}
	exported := buf.String()

	dst := openTemp(t)
	n, err = dst.Import(strings.NewReader(exported))
	if err != nil || n != 8 {
		t.Fatalf("import: %d, %v; want 8", n, err)
	}
	for _, k := range keys {
		a, err1 := src.Call(k)
		b, err2 := dst.Call(k)
		if err1 != nil || err2 != nil || b == nil {
			t.Fatalf("key %s: %v, %v, %v", k, b, err1, err2)
		}
		a.Time, b.Time = a.Time.UTC(), b.Time.UTC()
		if !reflect.DeepEqual(a, b) {
			t.Errorf("key %s differs after the trip:\n%+v\n%+v", k, a, b)
		}
	}
	// The imported cache replays the same calls without the network.
	replay := dst.Client(&fakeInner{}, CacheOnly)
	for i := 0; i < 5; i++ {
		req := chatReq("gpt-4o-mini", i)
		req.Temperature = 0.7 + float32(i)/10
		if i == 3 {
			req.TopP, req.N = 0.95, 3
		}
		if _, err := replay.Chat(ctx, req); err != nil {
			t.Errorf("replay %d: %v", i, err)
		}
	}
	got, err := replay.Embed(ctx, emb)
	if err != nil || got.Cached != 3 || !reflect.DeepEqual(got.Vectors, first.Vectors) {
		t.Errorf("embedding replay: %+v, %v", got, err)
	}
	if st, _ := dst.Stats(); st.Of(KindRuns).Entries != 0 {
		t.Error("runs travelled with the cache export")
	}

	// Importing again adds nothing; existing entries are kept.
	if n, err := dst.Import(strings.NewReader(exported)); err != nil || n != 0 {
		t.Errorf("re-import: %d, %v; want 0", n, err)
	}
}

func TestImportRejectsBadInput(t *testing.T) {
	src := openTemp(t)
	c := src.Client(&fakeInner{}, ReadWrite)
	if _, err := c.Chat(context.Background(), chatReq("m", 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), eval.EmbedRequest{Model: "emb", Texts: []string{"t"}}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := src.Export(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	header, chat, embed := lines[0], lines[1], lines[2]
	edit := func(line string, f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct {
		name  string
		input string
		want  string
	}{
		{"empty", "", "the input is empty"},
		{"no header", chat + "\n", "line 1: not a ragscope cache export"},
		{"newer version", edit(header, func(m map[string]any) { m["version"] = 2 }) + "\n", "line 1: export version 2"},
		{"broken JSON", header + "\n" + chat + "\n{\"kind\":\n", "line 3: invalid JSON"},
		{"unknown field", header + "\n" + edit(chat, func(m map[string]any) { m["api_key"] = "x" }) + "\n", `line 2: invalid JSON: json: unknown field "api_key"`},
		{"unknown kind", header + "\n" + edit(chat, func(m map[string]any) { m["kind"] = "image" }) + "\n", `line 2: unknown kind "image"`},
		{"edited prompt", header + "\n" + edit(chat, func(m map[string]any) {
			m["request"].(map[string]any)["model"] = "gpt-4o"
		}) + "\n", "line 2: key"},
		{"edited text", header + "\n" + chat + "\n" + edit(embed, func(m map[string]any) { m["text"] = "other" }) + "\n", "line 3: key"},
		{"bad vector", header + "\n" + edit(embed, func(m map[string]any) { m["vector_f32le"] = "AAA" }) + "\n", "line 2: vector_f32le"},
		{"no choices", header + "\n" + edit(chat, func(m map[string]any) {
			m["response"].(map[string]any)["choices"] = []any{}
		}) + "\n", "line 2: chat response has no choices"},
		{"no time", header + "\n" + edit(chat, func(m map[string]any) { delete(m, "time") }) + "\n", `line 2: entry has no "time"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dst := openTemp(t)
			n, err := dst.Import(strings.NewReader(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			st, _ := dst.Stats()
			if n != 0 || st.Of(KindChat).Entries+st.Of(KindEmbedding).Entries != 0 {
				t.Errorf("a rejected import wrote %d entries", n)
			}
		})
	}
	// Blank lines (a trailing newline, a hand-joined file) are not entries.
	dst := openTemp(t)
	if n, err := dst.Import(strings.NewReader(header + "\n\n" + chat + "\r\n\n" + embed)); err != nil || n != 2 {
		t.Errorf("import with blank lines and CRLF: %d, %v", n, err)
	}
}
