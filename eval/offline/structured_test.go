package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// The structured contexts below are written for this test in the shape of
// a bus-route assistant's knowledge base: records of Key: value fields, a
// Markdown table, an FAQ.
const (
	routeRecords = `Route: Dhaka to Sylhet
- Provider: National Travels; Bus type: Non-AC; Fare: 480 Taka; Departure times: 07:00, 18:00
- Provider: Green Line; Bus type: AC sleeper; Fare: 1200 Taka; Departure times: 22:30
No scheduled service is listed for Friday mornings.`

	fareTable = `| Route | Operator | Fare | First departure |
|---|---|---|---|
| Chittagong to Cox's Bazar | Saudia | 650 Taka | 06:15 |
| Chittagong to Rangamati | Shanti | 300 Taka | 08:00 |`

	luggageFAQ = `Q: How many bags may a passenger bring?
A: Each passenger may bring two bags of up to 20 kg in the hold.
Q: Can tickets be refunded?
A: Tickets are refundable up to 24 hours before departure, less a 10% fee.`
)

func scoreStructured(t *testing.T, j *Judge, s *eval.Sample) (faith, recall float64, vs []eval.StatementVerdict) {
	t.Helper()
	ctx := context.Background()
	stmts, err := j.Statements(ctx, s)
	if err != nil || len(stmts) == 0 {
		t.Fatalf("statements of %q: %v, %v", s.Answer, stmts, err)
	}
	vs, err = j.Verdicts(ctx, s, stmts)
	if err != nil {
		t.Fatal(err)
	}
	sup := 0
	for _, v := range vs {
		sup += v.Verdict
		if v.Evidence != nil && v.Evidence.Quote != "" && !strings.Contains(s.Contexts[v.Evidence.Chunk-1], v.Evidence.Quote) {
			t.Errorf("quote %q is not in chunk %d", v.Evidence.Quote, v.Evidence.Chunk)
		}
	}
	faith = float64(sup) / float64(len(vs))
	recall = -1
	if s.Reference != "" {
		cls, err := j.Classify(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		att := 0
		for _, c := range cls {
			att += c.Attributed
		}
		recall = float64(att) / float64(len(cls))
	}
	return faith, recall, vs
}

func TestStructuredContexts(t *testing.T) {
	tests := []struct {
		name      string
		ctx       string
		question  string
		answer    string
		reference string
	}{
		{"records", routeRecords, "What does the National Travels bus from Dhaka to Sylhet cost and when does it leave?",
			"*   **Fare:** 480 Taka\n*   **Departure times:** 07:00 and 18:00 [Source: routes.pdf, p. 1]",
			"The National Travels fare is 480 Taka and departure times are 07:00 and 18:00."},
		{"records prose answer", routeRecords, "Which bus to Sylhet is air-conditioned?",
			"Green Line runs an AC sleeper to Sylhet for 1200 Taka, leaving at 22:30.",
			"Green Line runs an AC sleeper bus; the fare is 1200 Taka and it departs at 22:30."},
		{"markdown table", fareTable, "How much is the Saudia bus from Chittagong to Cox's Bazar?",
			"The Saudia bus from Chittagong to Cox's Bazar costs 650 Taka and first departs at 06:15.",
			"Saudia charges 650 Taka from Chittagong to Cox's Bazar; the first departure is at 06:15."},
		{"faq", luggageFAQ, "How much luggage can I take?",
			"Each passenger may bring two bags, up to 20 kg each, in the hold.",
			"A passenger may bring two bags of up to 20 kg."},
	}
	j := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &eval.Sample{ID: tt.name, Question: tt.question, Answer: tt.answer, Reference: tt.reference, Contexts: []string{tt.ctx}}
			faith, recall, vs := scoreStructured(t, j, s)
			if faith < 0.9 || recall < 0.9 {
				t.Errorf("faithfulness %.2f, recall %.2f, want both >= 0.9; verdicts %+v", faith, recall, vs)
			}
		})
	}
}

func TestStructuredWrongFieldNamed(t *testing.T) {
	tests := []struct {
		name, ctx, question, answer, field string
	}{
		{"records", routeRecords, "What does the National Travels bus to Sylhet cost?",
			"The National Travels fare is 520 Taka and departure times are 07:00 and 18:00.", `field "Fare"`},
		{"table", fareTable, "How much is the Shanti bus to Rangamati?",
			"The Shanti bus from Chittagong to Rangamati costs 350 Taka and first departs at 08:00.", `field "Fare"`},
		{"faq", luggageFAQ, "Can I get a refund?",
			"Tickets are refundable up to 48 hours before departure, less a 10% fee.", "24 hours"},
	}
	j := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &eval.Sample{ID: tt.name, Question: tt.question, Answer: tt.answer, Contexts: []string{tt.ctx}}
			faith, _, vs := scoreStructured(t, j, s)
			if faith >= 1 {
				t.Fatalf("faithfulness %.2f for an answer with a wrong field value; verdicts %+v", faith, vs)
			}
			named := false
			for _, v := range vs {
				named = named || v.Verdict == 0 && strings.Contains(v.Reason, tt.field)
			}
			if !named {
				t.Errorf("no unsupported verdict's reason names %s: %+v", tt.field, vs)
			}
		})
	}
}

// A negation on an unrelated line of the chunk is not blamed for a
// statement that a record supports.
func TestStructuredNegationStaysInItsRecord(t *testing.T) {
	ev := Support("National Travels runs a Non-AC bus that departs at 07:00.", "Which buses leave in the morning?", []string{routeRecords})
	if ev.Verdict != 1 || ev.Detector != "" {
		t.Errorf("Support = %+v, want supported with no detector", ev)
	}
}

// TestCodeIsNoAmount: a field whose value is an identifier with one number
// in it ("Invoice No: NV-INV-20931") is not contradicted by an amount of the
// statement that names the invoice.
func TestCodeIsNoAmount(t *testing.T) {
	ctx := []string{"Invoice No: HV-INV-40217\nClinic: Quayside Animal Hospital, Dover\nDate: 2 May 2024\nClient: Ann Lee\nPatient: Biscuit (dog, 6 yrs)\nAttending vet: Dr. Bo Chen\nConsultation: £120.00\nX-ray: £210.00\nMedication: £45.00\nSubtotal: £375.00\nVAT (20%): £75.00\nTotal: £450.00\nPaid by insurer (claim QI-7731): £300.00\nBalance due from client: £150.00\nPayment terms: 14 days from invoice date"}
	ev := Support("Once the insurer's £300 payment is taken off, she has £150.00 left to pay, due within 14 days of the invoice date.", "How much does Ann Lee still owe?", ctx)
	if strings.Contains(ev.Reason, "Invoice No") {
		t.Errorf("the invoice number decided an amount: %s", ev.Reason)
	}
}

// TestFieldGoesOnAfterASemicolon: a field's value goes on past a semicolon
// up to the next field ("53座大巴：半日1,500元；全日2,400元" gives both prices), and
// a span of another unit in place of its value is a conflict ("three weeks"
// for "14 days").
func TestFieldGoesOnAfterASemicolon(t *testing.T) {
	coaches := []string{"市内包车价格（含司机、燃油）：\n- 33座中巴：半日1,100元；全日1,800元；超时150元/小时。\n- 53座大巴：半日1,500元；全日2,400元；超时200元/小时。"}
	loans := []string{"Loan periods\n- Physical books: 21 days, renewable twice\n- E-books: 14 days, no renewals; returned automatically at the end of the loan"}
	checkSupport(t, []supportCase{
		{name: "the second price of a field", statement: "53座大巴包全日是2,400元。", ctx: coaches, want: 1},
		{name: "another field's price", statement: "53座大巴包全日是1,800元。", ctx: coaches, want: 0},
		{name: "a span in other units", statement: "E-book loans last two weeks and can't be renewed.", ctx: loans, want: 1},
		{name: "another span in other units", statement: "E-book loans last three weeks and can't be renewed.", ctx: loans, want: 0, reason: "number conflict"},
	})
}

// TestVerbBesideAFieldsValue: a lowercase English word beside the words of
// a field's value ("… Marion Kell gave the final approval") is no word
// written in place of the value; another name is.
func TestVerbBesideAFieldsValue(t *testing.T) {
	ctx := []string{"Contract: GC-204\nPrepared by: Ann Lee (merchandising)\nReviewed by: Bo Chen (finance)\nFinal approval: Cy Dunn (general manager)"}
	checkSupport(t, []supportCase{
		{name: "the value and a verb", statement: "General manager Cy Dunn gave the final approval.", ctx: ctx, want: 1},
		{name: "another name", statement: "General manager Ed Marr gave the final approval.", ctx: ctx, want: 0},
	})
}

// TestSpanIsNoDatesDay: "within 14 days of the invoice date" is a span of
// days, which the day of the record's date ("Date: 2 May 2024") does not
// contradict; a day of the month written as a date's day still is checked.
func TestSpanIsNoDatesDay(t *testing.T) {
	ctx := []string{"Invoice No: HV-INV-40217\nDate: 2 May 2024\nClient: Ann Lee\nTotal: £450.00\nBalance due from client: £150.00\nPayment terms: 14 days from invoice date"}
	checkSupport(t, []supportCase{
		{name: "a span", statement: "She has £150.00 left to pay, due within 14 days of the invoice date.", ctx: ctx, want: 1},
		{name: "another date's day", q: "", statement: "The invoice date is 3 May 2024.", ctx: ctx, want: 0},
	})
}
