package cache

import (
	"context"
	"sync"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A dry run answers hits as a run does, sends misses to its inner client,
// and writes nothing; what it would have written answers its own repeats.
func TestDryRunServesHitsAndStoresNothing(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	net := &fakeInner{}
	rw := db.Client(net, ReadWrite)
	if _, err := rw.Chat(ctx, chatReq("m", 1)); err != nil {
		t.Fatal(err)
	}
	emb := eval.EmbedRequest{Endpoint: "e", Model: "emb", Texts: []string{"cached"}}
	if _, err := rw.Embed(ctx, emb); err != nil {
		t.Fatal(err)
	}
	before, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}

	plan := &fakeInner{}
	dry := db.Client(plan, DryRun)
	hit, err := dry.Chat(ctx, chatReq("m", 1))
	if err != nil || !hit.Cached || hit.Usage.CompletionTokens != 7 {
		t.Fatalf("hit: %+v, %v", hit, err)
	}
	// Eight callers of one new request at once: one reaches the planner.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := dry.Chat(ctx, chatReq("m", 2)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := plan.chats.Load(); n != 1 {
		t.Errorf("the planner was asked %d times for one request", n)
	}
	out, err := dry.Embed(ctx, eval.EmbedRequest{Endpoint: "e", Model: "emb", Texts: []string{"cached", "new", "new"}})
	if err != nil || out.Cached != 1 || len(out.Vectors) != 3 || out.Vectors[1] == nil || out.Vectors[2] == nil {
		t.Fatalf("embed: %+v, %v", out, err)
	}
	if got := plan.sentTexts; len(got) != 1 || len(got[0]) != 1 || got[0][0] != "new" {
		t.Errorf("the planner was asked to embed %q, want [[new]]", got)
	}
	again, err := dry.Embed(ctx, eval.EmbedRequest{Endpoint: "e", Model: "emb", Texts: []string{"new", "cached"}})
	if err != nil || again.Cached != 2 || plan.embeds.Load() != 1 {
		t.Errorf("a planned text is a hit of the dry run: %+v, %d requests, %v", again, plan.embeds.Load(), err)
	}
	after, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"chat", "embedding"} {
		if after.Of(kind).Entries != before.Of(kind).Entries {
			t.Errorf("the dry run stored %s entries: %d -> %d", kind, before.Of(kind).Entries, after.Of(kind).Entries)
		}
	}
	if net.chats.Load() != 1 || net.embeds.Load() != 1 {
		t.Errorf("the network client was used by the dry run")
	}
}
