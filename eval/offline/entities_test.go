package offline

import (
	"context"
	"slices"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

func TestExtractEntities(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"en: route, names, time, fare",
			"Take bus 73 from Oxford Circus to Stoke Newington. The first bus leaves at 05:40 and a single fare is £1.75.",
			[]string{"bus 73", "Oxford Circus", "Stoke Newington", "05:40", "£1.75"}},
		{"en: connector inside a name, percent, date with a month, weekday",
			"The Bank of England raised rates to 5.25% on 3 August 2023. Markets in London reacted on Friday.",
			[]string{"Bank of England", "5.25%", "3 August 2023", "London", "Friday"}},
		{"en: sentence-initial capitals alone are not names",
			"Employees must file the claim within 30 days. Receipts are needed above $25.",
			[]string{"30 days", "$25"}},
		{"en: acronym, quoted title, duration, clock time",
			`The NHS app lists "Your Appointments" for the next 2 weeks; call after 6 pm.`,
			[]string{"NHS", "Your Appointments", "2 weeks", "6 pm"}},
		{"en: ISO and month-year dates, code, currency code",
			"Version 2.1 ships on 2024-05-01; the N29 timetable changes in May 2024 and costs 480 BDT.",
			[]string{"Version 2.1", "2024-05-01", "N29", "May 2024", "480 BDT"}},
		{"en: repeated entity once, leading The dropped",
			"The Louvre opens at 9:00. Visitors queue outside the Louvre.",
			[]string{"Louvre", "9:00"}},
		{"zh: line, stations, time, price",
			"乘坐地铁4号线从天宫院站到安河桥北站，首班车06:00发车，票价9元。",
			[]string{"4号线", "天宫院站", "安河桥北站", "06:00", "9元"}},
		{"zh: full date, Latin name inside Chinese, taka, weekday",
			"2024年5月1日起，达卡地铁MRT Line 6票价为100塔卡，周五停运。",
			[]string{"2024年5月1日", "MRT Line 6", "100塔卡", "周五"}},
		{"zh: title in brackets, durations, chained place names",
			"根据《劳动合同法》，工作满1年的员工每年可休年假5天，请到北京市朝阳区人力资源局办理。",
			[]string{"《劳动合同法》", "1年", "5天", "北京市", "朝阳区", "人力资源局"}},
		{"zh: common nouns with a suffix are not names",
			"一线城市每晚不超过600元，其他城市不超过400元。",
			[]string{"600元", "400元"}},
		{"zh: Chinese numerals with a measure word, quoted name, bank",
			"换乘三号线后在“国贸”下车，对面是招商银行。",
			[]string{"三号线", "“国贸”", "招商银行"}},
		{"no entity", "Thanks, let me know if you need anything else.", []string{}},
		{"empty", "", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := New().Entities(context.Background(), &eval.Sample{}, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Entities(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

// Entity recall through the runner with the offline judge: both sides
// through the same patterns, matched on their normalised form.
func TestOfflineEntityRecall(t *testing.T) {
	s := eval.Sample{
		Question:  "怎么去安河桥北站？",
		Answer:    "坐4号线。",
		Reference: "乘坐4号线到安河桥北站，票价9元，约50分钟。",
		Contexts:  []string{"地铁４号线北起安河桥北站。", "单程票价9元。"},
	}
	r := &eval.Runner{Judge: New(), Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.ContextEntityRecall}, Workers: 1}}
	res := r.Run(context.Background(), []eval.Sample{s})[0]
	v, ok := res.Score(eval.ContextEntityRecall)
	// 4号线, 安河桥北站 and 9元 are retrieved (the full-width ４ is read as 4),
	// 50分钟 is not: 3/4.
	if !ok || v != 0.75 {
		t.Fatalf("entity recall %v (%s: %s), want 0.75; trace %+v", v, res.Status[eval.ContextEntityRecall], res.Errors[eval.ContextEntityRecall], res.ContextEntityRecall)
	}
	if m := res.ContextEntityRecall.Reference[0]; m.Entity != "4号线" || m.Match != "4号线" {
		t.Errorf("first match %+v", m)
	}
	if why := New().Unsupported(eval.ContextEntityRecall); why != "" {
		t.Errorf("the offline judge says it cannot compute entity recall: %s", why)
	}
}
