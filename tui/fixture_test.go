package tui

import (
	"time"

	"github.com/ragscope/ragscope/eval"
)

// fixedStart makes every header that shows a date print the same text.
var fixedStart = time.Date(2026, 3, 14, 9, 26, 0, 0, time.UTC)

func score(v float64) *float64 { return &v }

// fixtureResults is a finished run of eight samples, in Chinese and
// English, covering every trace kind: unsupported statements, generated
// questions with a noncommittal flag, the offline judge's answer
// similarity, useless chunks, unattributed reference statements, a judge
// failure, a parse failure and missing input.
func fixtureResults() []*eval.Result {
	all := func(f, ar, cp, cr float64) (map[eval.Metric]*float64, map[eval.Metric]eval.Status) {
		return map[eval.Metric]*float64{
				eval.Faithfulness: score(f), eval.AnswerRelevancy: score(ar),
				eval.ContextPrecision: score(cp), eval.ContextRecall: score(cr),
			}, map[eval.Metric]eval.Status{
				eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK,
				eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK,
			}
	}
	var out []*eval.Result

	// 0: the motivating case: fluent, unfaithful, documents were right.
	s, st := all(1.0/3, 0.727, 1, 1)
	out = append(out, &eval.Result{
		Index: 0, ID: "taxpayer-id",
		Question:  "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？",
		Answer:    "会变。转为一般纳税人后需要重新办理税务登记，领取新的纳税人识别号，原识别号作废。",
		Contexts:  []string{"纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变，无需重新办理税务登记。", "一般纳税人登记后可以使用增值税专用发票。"},
		Reference: "不会变。纳税人识别号保持不变，不需要重新办理税务登记。",
		Scores:    s, Status: st,
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "转为一般纳税人后纳税人识别号会变。", Verdict: 0, Reason: "上下文明确说明识别号不变，陈述与之相反（否定关系）。"},
			{Statement: "转为一般纳税人后需要重新办理税务登记。", Verdict: 0, Reason: "上下文写明无需重新办理税务登记。"},
			{Statement: "一般纳税人可以使用增值税专用发票。", Verdict: 1, Reason: "第二段上下文直接支持。"},
		}},
		AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
			{Question: "小规模纳税人转为一般纳税人后识别号是否改变？", Cosine: 0.910},
			{Question: "转为一般纳税人需要重新登记吗？", Cosine: 0.720},
			{Question: "一般纳税人能开专票吗？", Cosine: 0.550},
		}},
		ContextPrecision: &eval.ContextPrecisionTrace{
			Chunks: []eval.ChunkVerdict{
				{Rank: 1, Verdict: 1, Reason: "直接回答了识别号是否变化。"},
				{Rank: 2, Verdict: 0, Reason: "与识别号无关。"},
			},
			Precisions: []float64{1, 0.5},
		},
		ContextRecall: &eval.ContextRecallTrace{Attributed: 2, Classifications: []eval.Classification{
			{Statement: "纳税人识别号保持不变。", Attributed: 1, Reason: "第一段上下文。"},
			{Statement: "不需要重新办理税务登记。", Attributed: 1, Reason: "第一段上下文。"},
		}},
		Calls: []eval.CallRecord{
			{Task: "faithfulness_statements", Key: "k0a", Cached: true, Tokens: eval.Usage{PromptTokens: 300, CompletionTokens: 60}},
			{Task: "faithfulness_verdicts", Key: "k0b", Tokens: eval.Usage{PromptTokens: 500, CompletionTokens: 120}},
		},
	})
	s[eval.ContextPrecision] = score(1)

	// 1: good English sample.
	s, st = all(1, 0.93, 1, 1)
	out = append(out, &eval.Result{
		Index: 1, Question: "When was the Eiffel Tower completed?",
		Answer:    "The Eiffel Tower was completed in March 1889.",
		Contexts:  []string{"The Eiffel Tower was completed on 31 March 1889 for the World's Fair."},
		Reference: "It was completed in 1889.",
		Scores:    s, Status: st,
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "The Eiffel Tower was completed in March 1889.", Verdict: 1, Reason: "The context gives 31 March 1889."},
		}},
		AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
			{Question: "When was the Eiffel Tower finished?", Cosine: 0.95},
			{Question: "In what year was the Eiffel Tower completed?", Cosine: 0.91},
		}},
		ContextPrecision: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "States the date."}}, Precisions: []float64{1}},
		ContextRecall:    &eval.ContextRecallTrace{Attributed: 1, Classifications: []eval.Classification{{Statement: "It was completed in 1889.", Attributed: 1, Reason: "Chunk 1."}}},
	})

	// 2: retrieval miss: the needed document was not retrieved.
	s, st = all(1, 0.81, 0, 0)
	out = append(out, &eval.Result{
		Index: 2, Question: "What is the refund window for annual plans?",
		Answer:    "Refunds depend on the plan.",
		Contexts:  []string{"Monthly plans can be cancelled at any time.", "Our office is closed on public holidays."},
		Reference: "Annual plans can be refunded within 30 days of purchase.",
		Scores:    s, Status: st,
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "Refunds depend on the plan.", Verdict: 1, Reason: "Chunk 1 distinguishes plans."},
		}},
		AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
			{Question: "Do refunds depend on the plan?", Cosine: 0.81},
		}},
		ContextPrecision: &eval.ContextPrecisionTrace{
			Chunks: []eval.ChunkVerdict{
				{Rank: 1, Verdict: 0, Reason: "About monthly plans, not the annual refund window."},
				{Rank: 2, Verdict: 0, Reason: "Unrelated."},
			},
			Precisions: []float64{0, 0},
		},
		ContextRecall: &eval.ContextRecallTrace{Attributed: 0, Classifications: []eval.Classification{
			{Statement: "Annual plans can be refunded within 30 days of purchase.", Attributed: 0, Reason: "No chunk mentions annual plans or 30 days."},
		}},
	})

	// 3: noncommittal: faithful, but evasive; every question noncommittal.
	s, st = all(1, 0, 1, 1)
	out = append(out, &eval.Result{
		Index: 3, Question: "Can I bring my dog to the office?",
		Answer:    "Our office policies are described in the handbook.",
		Contexts:  []string{"Office policies are described in the employee handbook. Dogs are allowed on Fridays."},
		Reference: "Dogs are allowed on Fridays.",
		Scores:    s, Status: st,
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "Office policies are described in the handbook.", Verdict: 1, Reason: "Chunk 1 says so."},
		}},
		AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", AllNoncommittal: true, Questions: []eval.GeneratedQuestion{
			{Question: "Where are office policies described?", Noncommittal: 1, Cosine: 0.42},
			{Question: "Is there an employee handbook?", Noncommittal: 1, Cosine: 0.31},
		}},
		ContextPrecision: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "Says dogs are allowed on Fridays."}}, Precisions: []float64{1}},
		ContextRecall:    &eval.ContextRecallTrace{Attributed: 1, Classifications: []eval.Classification{{Statement: "Dogs are allowed on Fridays.", Attributed: 1, Reason: "Chunk 1."}}},
	})

	// 4: the offline judge: no questions generated, answer similarity.
	s, st = all(0.5, 0.412, 1, 1)
	out = append(out, &eval.Result{
		Index: 4, Question: "发票丢失了怎么办？",
		Answer:    "可以向开票方申请复印件并加盖发票专用章。也可以登报声明作废。",
		Contexts:  []string{"丢失已开具的发票，可凭开票方提供的发票复印件（加盖发票专用章）作为记账凭证。"},
		Reference: "可凭加盖发票专用章的复印件入账。",
		Scores:    s, Status: st,
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "可以向开票方申请复印件并加盖发票专用章。", Verdict: 1, Reason: "词汇覆盖 0.82 ≥ 0.5"},
			{Statement: "也可以登报声明作废。", Verdict: 0, Reason: "词汇覆盖 0.10 < 0.5"},
		}},
		AnswerRelevancy:  &eval.AnswerRelevancyTrace{Mode: "answer_similarity", AnswerCosine: 0.412},
		ContextPrecision: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "词汇覆盖 0.71"}}, Precisions: []float64{1}},
		ContextRecall:    &eval.ContextRecallTrace{Attributed: 1, Classifications: []eval.Classification{{Statement: "可凭加盖发票专用章的复印件入账。", Attributed: 1, Reason: "词汇覆盖 0.77"}}},
	})

	// 5: a judge failure on faithfulness, the rest scored.
	s, st = all(0, 0.88, 1, 1)
	s[eval.Faithfulness] = nil
	st[eval.Faithfulness] = eval.StatusJudgeError
	out = append(out, &eval.Result{
		Index: 5, Question: "How many vacation days do new employees get?",
		Answer:    "New employees get 20 vacation days per year.",
		Contexts:  []string{"New employees receive 20 days of paid vacation per year."},
		Reference: "20 days per year.",
		Scores:    s, Status: st,
		Errors:           map[eval.Metric]string{eval.Faithfulness: "HTTP 503 from the judge after 3 retries"},
		AnswerRelevancy:  &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{{Question: "How many vacation days do new hires get?", Cosine: 0.88}}},
		ContextPrecision: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "Gives the number."}}, Precisions: []float64{1}},
		ContextRecall:    &eval.ContextRecallTrace{Attributed: 1, Classifications: []eval.Classification{{Statement: "20 days per year.", Attributed: 1, Reason: "Chunk 1."}}},
		Calls: []eval.CallRecord{
			{Task: "faithfulness_statements", Key: "k5a", Retries: 3, Error: "HTTP 503 Service Unavailable"},
		},
	})

	// 6: no reference: precision and recall not computable.
	s, st = all(0, 0.64, 0, 0)
	s[eval.ContextPrecision], s[eval.ContextRecall] = nil, nil
	st[eval.ContextPrecision], st[eval.ContextRecall] = eval.StatusMissingInput, eval.StatusMissingInput
	s[eval.Faithfulness] = score(0)
	out = append(out, &eval.Result{
		Index: 6, Question: "Which database does the billing service use?",
		Answer:   "It uses MySQL 5.7 with a read replica.",
		Contexts: []string{"The billing service stores invoices in PostgreSQL 15."},
		Scores:   s, Status: st,
		Errors: map[eval.Metric]string{
			eval.ContextPrecision: "no reference in the dataset",
			eval.ContextRecall:    "no reference in the dataset",
		},
		Faithfulness: &eval.FaithfulnessTrace{Supported: 0, Statements: []eval.StatementVerdict{
			{Statement: "The billing service uses MySQL 5.7.", Verdict: 0, Reason: "The context says PostgreSQL 15."},
			{Statement: "The billing service has a read replica.", Verdict: 0, Reason: "No replica is mentioned."},
		}},
		AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
			{Question: "What database does billing use?", Cosine: 0.80},
			{Question: "Does the billing service have a replica?", Noncommittal: 0, Cosine: 0.48},
		}},
	})

	// 7: a parse failure of the judge's reply, and a metric not selected.
	s, st = all(0.75, 0, 0.5, 0.5)
	delete(s, eval.AnswerRelevancy)
	delete(st, eval.AnswerRelevancy)
	s[eval.ContextRecall] = nil
	st[eval.ContextRecall] = eval.StatusParseError
	out = append(out, &eval.Result{
		Index: 7, Question: "员工报销差旅费需要哪些材料？需要部门经理审批吗？还需要财务复核吗？",
		Answer:    "需要提供发票、行程单和审批单，部门经理审批后由财务复核。",
		Contexts:  []string{"差旅费报销须附发票、行程单。", "报销单经部门经理审批后交财务复核。"},
		Reference: "发票、行程单和审批单；经理审批，财务复核。",
		Scores:    s, Status: st,
		Errors: map[eval.Metric]string{eval.ContextRecall: `judge reply is not valid JSON: unexpected end of input at byte 212`},
		Faithfulness: &eval.FaithfulnessTrace{Supported: 3, Statements: []eval.StatementVerdict{
			{Statement: "报销需要提供发票。", Verdict: 1, Reason: "第一段。"},
			{Statement: "报销需要提供行程单。", Verdict: 1, Reason: "第一段。"},
			{Statement: "报销需要提供审批单。", Verdict: 0, Reason: "上下文未提到审批单。"},
			{Statement: "部门经理审批后由财务复核。", Verdict: 1, Reason: "第二段。"},
		}},
		ContextPrecision: &eval.ContextPrecisionTrace{
			Chunks: []eval.ChunkVerdict{
				{Rank: 1, Verdict: 0, Reason: "只列了材料的一部分。"},
				{Rank: 2, Verdict: 1, Reason: "说明了审批流程。"},
			},
			Precisions: []float64{0, 0.5},
		},
	})
	return out
}

func fixtureOptions() Options {
	return Options{
		Dataset: "testdata/demo.jsonl",
		Judge:   eval.JudgeInfo{Kind: "llm", Name: "gpt-4o-mini", Model: "gpt-4o-mini"},
		Results: fixtureResults(),
		Started: fixedStart,
	}
}
