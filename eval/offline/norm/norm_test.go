package norm

import (
	"slices"
	"testing"
)

// TestRewrites: each rewrite of numbers and quantities as digits, on what
// it rewrites and on look-alikes it must leave.
func TestRewrites(t *testing.T) {
	for _, r := range []struct {
		name  string
		f     func(string) string
		cases map[string]string
	}{
		{"Numerals", Numerals, map[string]string{
			"三十天":     "30天",
			"两个月":     "2个月",
			"十五万元":    "150000元",
			"1.5万元":   "15000元",
			"百分之八十":   "80%",
			"千分之五":    "0.5%",
			"月薪三万五":   "月薪35000",
			"一百五十人":   "150人",
			"一百五人":    "150人",
			"一百零五人":   "105人",
			"两千五百元":   "2500元",
			"两千五元":    "2500元",
			"万分之五":    "0.05%",
			"两周":      "14天",
			"3周":      "21天",
			"两个星期":    "14天",
			"3个星期":    "21天",
			"星期一":     "星期一",
			"第三周":     "第三周",
			"一般情况下统一": "一般情况下统一",
			"万一":      "万一",
			"三十千克":    "30千克",
			"二十千米":    "20千米",
			"五千米":     "5000米",
			"二百万千瓦":   "2000000千瓦",
			"一百二十万千瓦": "1200000千瓦",
		}},
		{"EnglishNumbers", EnglishNumbers, map[string]string{
			"within twenty-four hours":   "within 24 hours",
			"Forty five calendar days":   "45 calendar days",
			"two hundred seats":          "200 seats",
			"three thousand dollars":     "3000 dollars",
			"one two three":              "one two three",
			"twenty days":                "twenty days",
			"a plenty-five of something": "a plenty-five of something",
		}},
		{"Quantities", Quantities, map[string]string{
			"a budget of $1.2 million": "a budget of $1200000",
			"a budget of $1.2M":        "a budget of $1200000",
			"carried at $21.0M":        "carried at $21000000",
			"a 2.5k cap":               "a 2500 cap",
			"3 billion users":          "3000000000 users",
			"40 thousand":              "40000",
			"a 3m fence":               "a 3m fence",
			"5 Kings":                  "5 Kings",
		}},
		{"Quantities", Quantities, map[string]string{
			"停用半年内未申请":                       "停用6个月内未申请",
			"一年半后到期":                         "18个月后到期",
			"两年半后到期":                         "30个月后到期",
			"午休一个半小时":                        "午休90分钟",
			"3个半小时":                          "210分钟",
			"三天半":                            "3.5天",
			"票价三块五":                          "票价3.5元",
			"每度八毛二":                          "每度0.82元",
			"五毛钱":                            "0.5元钱",
			"3块5毛":                           "3.5元",
			"一块去":                            "一块去",
			"次日早6点交班":                        "次日06:00交班",
			"凌晨2点":                           "02:00",
			"傍晚6点半":                          "18:30",
			"within a fortnight":             "within 14 days",
			"due by 5 pm on 6 May":           "due by 17:00 on 6 May",
			"at 9:30 a.m.":                   "at 09:30",
			"at 12 am.":                      "at 00:00",
			"下午5点前提交":                        "17:00前提交",
			"上午9点半开会":                        "09:30开会",
			"5 people":                       "5 people",
			"at 13 pm":                       "at 13 pm",
			"(26 September 188926 May 1976)": "(26 September 1889 – 26 May 1976)",
			"23 July 19572 November 2004":    "23 July 1957 – 2 November 2004",
			"order 188926 May 2024":          "order 188926 May 2024",
			"September 1889 to May 1976":     "September 1889 to May 1976",
		}},
	} {
		for in, want := range r.cases {
			if got := r.f(in); got != want {
				t.Errorf("%s(%q) = %q, want %q", r.name, in, got, want)
			}
		}
	}
}

func TestDates(t *testing.T) {
	for s, want := range map[string]int{"2024-06-01": 10, "2024/6/1 x": 8, "2024-06/01": 0, "2024-06-011": 0, "24-06-01": 0} {
		if got := ISODate(s); got != want {
			t.Errorf("ISODate(%q) = %d, want %d", s, got, want)
		}
	}
	if got := DateParts("2024/6/1"); len(got) != 3 || got[0] != "2024" || got[1] != "6" || got[2] != "1" {
		t.Errorf("DateParts = %q", got)
	}
	if got := MonthNumber("mar"); got != "3" {
		t.Errorf("MonthNumber(mar) = %q, want 3", got)
	}
}

// A unit of two characters is read whole where a first character would
// name two units (公斤 and 公里) or another (个月 and 个).
func TestHanUnit(t *testing.T) {
	for text, want := range map[string]string{"公斤以内": "公斤", "公里": "公里", "个月内": "个月", "个人": "个", "天内": "天", "元": "元", "平方公里，": "平方公里", "平方米": "平方米"} {
		if got := HanUnit(text); got != want {
			t.Errorf("HanUnit(%q) = %q, want %q", text, got, want)
		}
	}
	if Unit(HanUnit("公斤")) != Unit("kg") || Unit(HanUnit("千克")) != Unit("kg") || Unit(HanUnit("公斤")) == Unit(HanUnit("公里")) {
		t.Errorf("公斤, 千克 and kg are not one unit apart from 公里")
	}
}

// Amounts in two units of one kind, one a multiple of the other, are the
// same (2年 and 24个月); units of two kinds never are (km² and km).
func TestSameAmount(t *testing.T) {
	for _, tt := range []struct {
		v1, u1, v2, u2 string
		want           bool
	}{
		{"2", Unit(HanUnit("年")), "24", Unit(HanUnit("个月")), true},
		{"24", "month", "2", "year", true},
		{"3", "week", "21", Unit("day"), true},
		{"1.5", "hour", "90", "minut", true},
		{"2", Unit("day"), "48", "hour", true},
		{"1", Unit(HanUnit("天")), "24", Unit(HanUnit("小时")), true},
		{"3", "year", "24", "month", false},
		{"86", Unit(HanUnit("平方公里")), "86", Unit("km"), false},
		{"2", "year", "2", "month", false},
	} {
		if got := SameAmount(tt.v1, tt.u1, tt.v2, tt.u2); got != tt.want {
			t.Errorf("SameAmount(%s %s, %s %s) = %v, want %v", tt.v1, tt.u1, tt.v2, tt.u2, got, tt.want)
		}
	}
	if !OtherKind(Unit(HanUnit("平方公里")), Unit("km")) || OtherKind("year", "month") || !Convertible("year", "month") || Convertible("km", "kg") {
		t.Errorf("km² and km are of two kinds, years and months of one and convertible, km and kg not convertible")
	}
}

// A date the statement computes from a given date and a given span is
// shown with its arithmetic; one written, or one no span makes, is not.
func TestComputed(t *testing.T) {
	for _, c := range []struct {
		date  string
		given []string
		want  string
	}{
		{"by 1 April 2025", []string{"Current term ends: 30 June 2025", "written notice at least 90 days before the end"}, "30 June 2025 − 90 days = 1 April 2025"},
		{"by 1 May 2025", []string{"Current term ends: 30 June 2025", "written notice at least 90 days before the end"}, ""},
		{"最早3月11日结算", []string{"结算周期：T为确认收货日，7天后结算", "买家在3月4日确认收货"}, "3月4日 + 7天 = 3月11日"},
		{"April 5", []string{"generated on March 15", "Payment is due 21 days after the statement date"}, "March 15 + 21 days = April 5"},
		{"due on 2024-07-15", []string{"issued 2024-06-15", "payable within one month"}, "2024-06-15 + one month = 2024-07-15"},
		{"on 30 June 2025", []string{"Current term ends: 30 June 2025", "90 days"}, ""},
		{"2025年6月20日前", []string{"合同到期日：2025年6月30日", "须提前两周书面通知"}, ""},
		{"2025年6月16日前", []string{"合同到期日：2025年6月30日", "须提前两周书面通知"}, "2025年6月30日 − 14天 = 2025年6月16日"},
		{"by 15 June", []string{"ends 30 June", "within 10 business days"}, ""},
		// Hours that make whole days move a date by those days.
		{"by October 12", []string{"Start: 2024-10-14 10:00", "Cancel at least 48 hours before the start"}, "2024-10-14 − 48 hours = October 12"},
		{"by October 13", []string{"Start: 2024-10-14 10:00", "Cancel at least 36 hours before the start"}, ""},
		{"8月20日前", []string{"开场日期：8月23日", "须在开场前72小时下单"}, "8月23日 − 72小时 = 8月20日"},
	} {
		ds := Dates(c.date)
		if len(ds) != 1 {
			t.Fatalf("%q: dates %v", c.date, ds)
		}
		if got := Computed(ds[0], c.given); got != c.want {
			t.Errorf("%q from %q: %q, want %q", c.date, c.given, got, c.want)
		}
	}
}

func TestArithmetic(t *testing.T) {
	for _, c := range []struct {
		want  float64
		terms []float64
		idx   []int
		op    string
	}{
		{158, []float64{98, 60}, []int{0, 1}, "+"},
		{2900, []float64{1400, 1400, 100}, []int{0, 1, 2}, "+"},
		{5.6, []float64{5, 0.6, 2}, []int{0, 1}, "+"},
		{100, []float64{20, 30, 50, 70}, []int{1, 3}, "+"}, // the fewest terms: not 20 + 30 + 50
		{54, []float64{99, 45}, []int{0, 1}, "−"},
		{54, []float64{45, 99}, []int{1, 0}, "−"},
		{64, []float64{99, 45}, nil, ""},
		{99, []float64{99}, nil, ""},
		{0, nil, nil, ""},
	} {
		idx, op := Arithmetic(c.want, c.terms)
		if !slices.Equal(idx, c.idx) || op != c.op {
			t.Errorf("Arithmetic(%v, %v) = %v %q, want %v %q", c.want, c.terms, idx, op, c.idx, c.op)
		}
	}
}

// Of two number words of one value, one stem is read each time, whatever
// the map's order ("dozen" and "twelve" for 12).
func TestStemsByValueDeterministic(t *testing.T) {
	words := map[string]string{"twelve": "12", "dozen": "12", "eight": "8", "one": "1"}
	for range 50 {
		got := stemsByValue(words, "1")
		if len(got) != 2 || got["12"] != Stem("dozen") || got["8"] != Stem("eight") {
			t.Fatalf("stemsByValue = %q, want 12 read as %q and 8 as %q", got, Stem("dozen"), Stem("eight"))
		}
	}
}
