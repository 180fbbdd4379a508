package tui

import (
	"maps"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// rerunFixture is the re-run of samples 0 and 6 (the filter f<0.5) after
// an edit of the faithfulness verdict template: on sample 0 the judge now
// accepts the statement about re-registration (0 -> 1, faithfulness
// 0.333 -> 0.667); sample 6 comes back unchanged.
func rerunFixture() []*eval.Result {
	all := fixtureResults()
	s0, s6 := all[0], all[6]
	s0.Scores = maps.Clone(s0.Scores)
	s0.Scores[eval.Faithfulness] = score(2.0 / 3)
	st := append([]eval.StatementVerdict(nil), s0.Faithfulness.Statements...)
	st[1] = eval.StatementVerdict{Statement: st[1].Statement, Verdict: 1, Reason: "上下文说明了登记的处理方式，陈述可由此推断。"}
	s0.Faithfulness = &eval.FaithfulnessTrace{Supported: 2, Statements: st}
	s0.Calls = []eval.CallRecord{
		{Task: "faithfulness_statements", Key: "k0a", Cached: true},
		{Task: "faithfulness_verdicts", Key: "k0c", Tokens: eval.Usage{PromptTokens: 520, CompletionTokens: 110}},
	}
	return []*eval.Result{s0, s6}
}

// rerunEvents is the event stream of rerunFixture: only the two verdict
// calls reach the judge, the rest come from the cache.
func rerunEvents() []eval.Event {
	res := rerunFixture()
	t := fixedStart.Add(10 * time.Minute)
	return []eval.Event{
		{Kind: eval.EventRunStarted, Sample: -1, Total: 2, Time: t},
		{Kind: eval.EventSampleStarted, Sample: 0, InFlight: 1},
		{Kind: eval.EventCall, Sample: 0, Call: &eval.CallRecord{Task: "faithfulness_statements", Cached: true}},
		{Kind: eval.EventCall, Sample: 0, Call: &eval.CallRecord{Task: "faithfulness_verdicts", Tokens: eval.Usage{PromptTokens: 520, CompletionTokens: 110}}},
		{Kind: eval.EventSampleFinished, Sample: 0, Result: res[0]},
		{Kind: eval.EventSampleStarted, Sample: 6, InFlight: 1},
		{Kind: eval.EventCall, Sample: 6, Call: &eval.CallRecord{Task: "faithfulness_statements", Cached: true}},
		{Kind: eval.EventCall, Sample: 6, Call: &eval.CallRecord{Task: "faithfulness_verdicts", Tokens: eval.Usage{PromptTokens: 300, CompletionTokens: 80}}},
		{Kind: eval.EventSampleFinished, Sample: 6, Result: res[1]},
		{Kind: eval.EventRunFinished, Sample: -1, Time: t.Add(4 * time.Second)},
	}
}

func fixtureHost() *fakeHost {
	return &fakeHost{
		list:        fixturePrompts(),
		plan:        Plan{Calls: 2, Cached: 6, Tokens: 820},
		rerunID:     "run-2",
		rerunEvents: rerunEvents(),
		current:     "run-1",
		runs: []report.RunInfo{
			{ID: "run-2", Parent: "run-1", StartedAt: fixedStart.Add(10 * time.Minute), Judge: eval.JudgeInfo{Name: "gpt-4o-mini"}, Samples: 8},
			{ID: "run-1", StartedAt: fixedStart, Judge: eval.JudgeInfo{Name: "gpt-4o-mini"}, Samples: 8},
		},
		results: map[string][]*eval.Result{
			"run-1": fixtureResults(),
			"run-2": rerunFixture(),
		},
	}
}

func hostOptions(h Host) Options {
	o := fixtureOptions()
	o.Host = h
	o.RunID = "run-1"
	return o
}
