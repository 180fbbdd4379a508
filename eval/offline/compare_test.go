package offline

import (
	"strings"
	"testing"
)

// TestComparisons: what decides a comparison, and what must not.
func TestComparisons(t *testing.T) {
	for _, c := range []struct {
		name, question, statement string
		contexts                  []string
		verdict                   int
		reason                    string // a part of the reason; "" for any
	}{
		{"alternatives by amount", "Which card has the higher cash limit, Silver or Gold?", "Gold has the higher cash limit.",
			[]string{"The Silver card has a cash limit of $300.", "The Gold card has a cash limit of $800."}, 1, "Silver $300, Gold $800"},
		{"alternatives reversed", "Which card has the higher cash limit, Silver or Gold?", "Silver has the higher cash limit.",
			[]string{"The Silver card has a cash limit of $300.", "The Gold card has a cash limit of $800."}, 0, "Gold has it"},
		{"bare answer to a time comparison", "Which office opened first, Oslo or Bergen?", "Bergen",
			[]string{"The Oslo office opened in 2012.", "The Bergen office opened in 2004."}, 1, "Bergen is the first"},
		{"bare wrong answer", "Which office opened first, Oslo or Bergen?", "Oslo",
			[]string{"The Oslo office opened in 2012.", "The Bergen office opened in 2004."}, 0, "Bergen has it"},
		{"a restated question around its item", "Who was born first, Ann Lee or Bo Chen?", "Ann Lee was born first.",
			[]string{"Ann Lee (12 March 1911 – 18 May 1996) was a poet.", "Bo Chen (born June 2, 1953) is a philosopher."}, 1, "Ann Lee is the first"},
		{"a restated question around the other item", "Who was born first, Ann Lee or Bo Chen?", "Bo Chen was born first.",
			[]string{"Ann Lee (12 March 1911 – 18 May 1996) was a poet.", "Bo Chen (born June 2, 1953) is a philosopher."}, 0, "Ann Lee has it"},
		{"a date range whose dash was lost", "Who was born first, Ann Lee or Bo Chen?", "Bo Chen was born first.",
			[]string{"Ann Lee (12 March 191118 May 1996) was a poet.", "Bo Chen (born June 2, 1953) is a philosopher."}, 0, "Ann Lee 1911"},
		{"zh a decade is no point in time", "南港和北港哪个开埠更早？", "南港比北港开埠更早。",
			[]string{"南港位于半岛西侧。1898年，南港正式开埠。", "北港早在1870年代已有渔船停泊。直到1904年航道疏浚完成后，北港才正式开埠。"}, 1, "北港 1904年"},
		{"a length by its noun and its adjective", "Which bridge is longer, the Quay Bridge or the Marsh Bridge?", "The Quay Bridge is longer than the Marsh Bridge.",
			[]string{"The Quay Bridge is a truss bridge in Dunmarsh. Opened in 1911, it is 212 metres long.", "The Marsh Bridge crosses the river downstream. It has a total length of 148 metres."}, 1, "the Quay Bridge 212 metres"},
		{"zh the other item is the question's", "云桥和雁桥哪座更长？", "雁桥比云桥更长。",
			[]string{"云桥是一座石拱桥，位于云镇中心。桥始建于1820年，全长86米。", "雁桥位于河下游的雁村，于1979年建成通车。大桥全长154米，主跨40米。"}, 1, "雁桥 154米"},
		{"zh the other item is the question's, wrongly", "云桥和雁桥哪座更长？", "云桥比雁桥更长。",
			[]string{"云桥是一座石拱桥，位于云镇中心。桥始建于1820年，全长86米。", "雁桥位于河下游的雁村，于1979年建成通车。大桥全长154米，主跨40米。"}, 0, "雁桥 has it"},
		{"zh a year is no amount", "汀纸厂和石纸厂，哪一家鼎盛时期的工人更多？", "石纸厂鼎盛时期的工人比汀纸厂更多。",
			[]string{"汀纸厂位于柏镇，1931年鼎盛时期有工人220名。", "石纸厂由冯静创办，1936年鼎盛时期，该厂有工人150名。"}, 0, "220名"},
		{"a value in the sentence after the name", "Which was founded first, Quay Rovers or Harbour Town F.C.?", "Harbour Town F.C. was founded first.",
			[]string{"Quay Rovers is a club in Dover. It was founded in 1891.", "Harbour Town F.C. is a club in Kent. The club was formed in 1884."}, 1, "Harbour Town F.C. is the first"},
		{"a value further on in the item's paragraph", "Which was founded first, Quay Air or Harbour Airways?", "Harbour Airways was founded first.",
			[]string{"Quay Air is a regional airline in Dover. It was founded in 1981.", "Harbour Airways is a small airline serving the islands. The company was founded in 1976."}, 1, "Harbour Airways 1976"},
		{"a paragraph that turns to another name", "Which was founded first, Quay Air or Harbour Airways?", "Harbour Airways was founded first.",
			[]string{"Quay Air is a regional airline in Dover. It was founded in 1981.", "Harbour Airways is a small airline. Tide Air is its rival. The company was founded in 1976."}, 0, "covers"},
		// Two items that share their first word: the statement's item is the
		// one whose own words come first in it.
		{"items that share a word", "Which is bigger, Quaybunk Porto Ribeira or Quaybunk Seville Triana?", "Seville Triana is the bigger of the two, with 92 beds to Porto Ribeira's 64.",
			[]string{"Quaybunk Porto Ribeira has 64 beds in six dorms.", "Quaybunk Seville Triana has 92 beds in eight dorms."}, 1, ""},
		{"one clause per item", "Do analysts or testers get more leave?", "Testers have more annual leave.",
			[]string{"Annual leave: analysts 20 days, testers 25 days."}, 1, "testers 25 days"},
		{"chinese alternatives", "甲方案和乙方案，哪个费用更低？", "乙方案的费用更低。",
			[]string{"甲方案费用为每年3000元。", "乙方案费用为每年2000元。"}, 1, "乙方案"},
		// The item is cut out before the rest is read: 技成 of 乙科技成立 is no
		// word of the statement's own.
		{"chinese answer that only names its item", "甲软件和乙科技哪家公司成立得更早？", "乙科技成立得更早。",
			[]string{"甲软件是一家教育软件公司。公司由张三于2010年创立。", "乙科技是一家工业软件企业。公司由李四于2007年共同创办。"}, 1, "乙科技 2007"},
		{"chinese age is a point in time", "王一和赵二谁的年纪更大？", "赵二的年纪更大。",
			[]string{"王一，1958年生于上海，作家。", "赵二，1955年生于长沙，小说家。"}, 1, "赵二 1955"},
		// The value is the one in the clause that says what is compared.
		{"chinese value in its clause", "甲大学和乙大学，哪所学校的在校学生更多？", "甲大学的在校学生更多。",
			[]string{"甲大学是一所综合性大学。学校设有二十二个学院，现有在校学生约两万六千人。", "乙大学是一所理工大学。学校现有在校学生约一万九千人，设有十五个学院。"}, 1, "甲大学 26000人"},
		{"table superlative", "哪个区域的销售额最高？", "华南区的销售额最高。",
			[]string{"| 区域 | 销售额 |\n|---|---|\n| 华东区 | 120万元 |\n| 华南区 | 150万元 |\n| 华北区 | 90万元 |"}, 1, "华南区"},
		{"table superlative wrong", "哪个区域的销售额最高？", "华东区的销售额最高。",
			[]string{"| 区域 | 销售额 |\n|---|---|\n| 华东区 | 120万元 |\n| 华南区 | 150万元 |\n| 华北区 | 90万元 |"}, 0, "华南区"},
		// Not decided by values: a quantity of something else, units apart,
		// a bound, a tie.
		{"values of another thing", "Should we use VPN or VDI?", "VDI is more secure.",
			[]string{"VPN supports 200 users.", "VDI supports 50 users."}, 0, "covers"},
		{"units apart", "Which tier stores more, Basic or Plus?", "Plus stores more.",
			[]string{"The Basic tier stores 500 GB.", "The Plus tier stores 1 TB."}, -1, ""},
		{"a bound is no comparison", "Which plan covers dental, Basic or Plus?", "Plus covers dental for more than 2 years.",
			[]string{"The Basic plan covers 1 year of dental.", "The Plus plan covers dental for 3 years."}, -1, ""},
		{"a superlative in a noun", "经理的报销最高限额是多少？", "经理的报销最高限额是5000元。",
			[]string{"| 职级 | 报销最高限额 |\n|---|---|\n| 经理 | 5000元 |\n| 总监 | 8000元 |"}, 1, "5000元"},
		{"most as a quantity", "Do Oslo or Bergen staff work remotely?", "Most staff in Oslo work remotely.",
			[]string{"The Oslo office has 40 staff.", "The Bergen office has 90 staff."}, -1, ""},
		{"at least", "Which plan, Basic or Plus, needs a deposit?", "Plus needs a deposit of at least $100.",
			[]string{"The Basic plan needs a deposit of $50.", "The Plus plan needs a deposit of $100."}, -1, ""},
		{"a tie", "Which team is larger, Ops or QA?", "Ops is larger.",
			[]string{"The Ops team has 12 people.", "The QA team has 12 people."}, -1, ""},
		{"a comparative of three rows", "How much more is the Team plan than Solo?", "Team costs $30 more.",
			[]string{plans}, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := Support(c.statement, c.question, c.contexts)
			if c.verdict >= 0 && ev.Verdict != c.verdict {
				t.Errorf("verdict %d, want %d: %s", ev.Verdict, c.verdict, ev.Reason)
			}
			if !strings.Contains(ev.Reason, c.reason) {
				t.Errorf("reason %q does not say %q", ev.Reason, c.reason)
			}
			decided := strings.Contains(ev.Reason, " has it") || strings.Contains(ev.Reason, " is the ")
			if c.verdict < 0 && decided || c.name == "values of another thing" && decided {
				t.Errorf("decided by values: %s", ev.Reason)
			}
		})
	}
}

// TestRoles: a part given to the wrong party, in either language, and
// what is no swap.
func TestRoles(t *testing.T) {
	ctxEN := []string{"Refunds are requested by the customer, checked by Support and paid by Billing."}
	ctxZH := []string{"退款由客户申请，客服部审核，财务部支付。"}
	for _, c := range []struct {
		name, question, statement string
		contexts                  []string
		verdict                   int
	}{
		{"en right party", "Who pays refunds?", "Billing pays refunds.", ctxEN, 1},
		{"en wrong party", "Who pays refunds?", "Support pays refunds.", ctxEN, 0},
		{"en passive wrong party", "Who pays refunds?", "Refunds are paid by Support.", ctxEN, 0},
		{"en bare answer wrong", "Who pays refunds?", "Support", ctxEN, 0},
		{"zh right party", "退款由谁支付？", "退款由财务部支付。", ctxZH, 1},
		{"zh wrong party", "退款由谁支付？", "退款由客服部支付。", ctxZH, 0},
		{"both parts said", "Who handles refunds?", "Support checks refunds and Billing pays them.", ctxEN, 1},
		// A thousands separator cuts no piece, and a sum of money is no year.
		{"amounts with separators", "What do testers get?", "Testers get $2,000.", []string{"Analysts get $2,000, testers get $2,500."}, 0},
		{"amounts with separators right", "What do testers get?", "Testers get 2,500 yuan.", []string{"Analysts get 2,000 yuan and testers get 2,500 yuan."}, 1},
		{"a year-like sum of money", "What do testers get?", "Testers get 2,000 yuan.", []string{"Analysts get 2,000 yuan and testers get 2,500 yuan."}, 0},
		// A party described before its name is named by its name.
		{"a described party", "Who designed the Quay Bridge?", "The Quay Bridge was designed by Bo Chen.",
			[]string{"The Quay Bridge was designed by the engineer Ann Lee and built by the contractor Bo Chen."}, 0},
		{"a described party right", "Who designed the Quay Bridge?", "The Quay Bridge was designed by Ann Lee.",
			[]string{"The Quay Bridge was designed by the engineer Ann Lee and built by the contractor Bo Chen."}, 1},
		// One part given, and the statement gives it to another name there.
		{"one part, another name", "Who approves expense claims?", "The Office Manager approves expense claims.",
			[]string{"Expense claims are approved by the Finance Controller after the Office Manager has checked the receipts."}, 0},
		{"one part, its party", "Who approves expense claims?", "The Finance Controller approves expense claims.",
			[]string{"Expense claims are approved by the Finance Controller after the Office Manager has checked the receipts."}, 1},
		{"zh one part, another name", "设备损坏的风险由谁承担？", "设备损坏的风险由出租人承担。",
			[]string{"设备损坏的风险由承租人承担，但因出租人提供的设备质量缺陷造成的除外。"}, 0},
		{"zh one part, its party", "设备损坏的风险由谁承担？", "设备损坏的风险由承租人承担。",
			[]string{"设备损坏的风险由承租人承担，但因出租人提供的设备质量缺陷造成的除外。"}, 1},
		// Two parts of one verb: each party has its own.
		{"zh two parts of one verb", "住宿费由谁承担？", "比赛期间的住宿费由学院承担。",
			[]string{"往返交通费由家长承担，比赛期间住宿费由学院承担。"}, 1},
		{"en two parts of one verb", "Who paid for the hotel?", "The hotel was paid by Quay Academy.",
			[]string{"The travel was paid by Harbour Parents Fund and the hotel was paid by Quay Academy."}, 1},
		// A lead-in before a colon is every piece's, not the first piece's
		// party: a statement with its words names no party.
		{"a lead-in is no party", "What's my copay at a Gold provider?", "A GP visit at a Gold provider costs a $35 copay.",
			[]string{"Member costs per GP visit: Silver providers $15 copay, Gold providers $35 copay, out-of-network visits 40% coinsurance."}, 1},
		{"a lead-in, the other party's share", "What's my copay at a Gold provider?", "A GP visit at a Gold provider costs a $15 copay.",
			[]string{"Member costs per GP visit: Silver providers $15 copay, Gold providers $35 copay, out-of-network visits 40% coinsurance."}, 0},
		{"a quantity is no party", "Who approved the fee?", "The fee was approved by the CEO.", []string{"The fee was reduced by 10% and approved by the board."}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := Support(c.statement, c.question, c.contexts)
			if ev.Verdict != c.verdict {
				t.Fatalf("verdict %d, want %d: %s", ev.Verdict, c.verdict, ev.Reason)
			}
			if c.verdict == 0 && c.name != "a quantity is no party" && !strings.Contains(ev.Reason, "wrong party") {
				t.Errorf("reason does not name the swap: %s", ev.Reason)
			}
			if c.name == "a quantity is no party" && strings.Contains(ev.Reason, "wrong party") {
				t.Errorf("a quantity read as a party: %s", ev.Reason)
			}
		})
	}
}

// TestComparisonChunks: the values of two chunks make both useful; two
// values of one chunk name that chunk once.
func TestComparisonChunks(t *testing.T) {
	q := "Which card has the higher cash limit, Silver or Gold?"
	two := Support("Gold has the higher cash limit.", q, []string{"The Silver card has a cash limit of $300.", "The Gold card has a cash limit of $800."})
	if two.Verdict != 1 || two.Also < 0 {
		t.Errorf("two chunks: verdict %d, also %d: %s", two.Verdict, two.Also, two.Reason)
	}
	one := Support("Gold has the higher cash limit.", q, []string{"The Silver card has a cash limit of $300. The Gold card has a cash limit of $800."})
	if one.Verdict != 1 || one.Also >= 0 {
		t.Errorf("one chunk: verdict %d, also %d: %s", one.Verdict, one.Also, one.Reason)
	}
}

const plans = "| Plan | Monthly price | Seats |\n|---|---|---|\n| Solo | $19 | 1 |\n| Team | $49 | 10 |\n| Business | $99 | 50 |"

// TestSameValue: "the same" (or "different") decided by the value the
// context gives each of the two things, in either language; and what
// decides nothing.
func TestSameValue(t *testing.T) {
	leagues := []string{"The Harbour Kestrels were founded in 1921 and play in the Northern Premier League.",
		"The Dunmore Giants, founded in 1930, play in the Northern Premier League."}
	towns := []string{"Ada Brook was born in Lyon, France, and studied in Geneva.", "Ben Ashe was born in Paris, France.", "Cy Dunn was born in Turin, Italy."}
	speeds := []string{"北岭铁路全长214公里，2013年通车。线路为双线电气化铁路，设计时速160公里。", "南屏铁路全长97公里。该线为单线铁路，设计时速为120公里。"}
	seats := []string{"疾风车队成立于2012年，车队注册地为海南。", "红岩车队由罗永创办，车队注册地为重庆。"}
	for _, c := range []struct {
		name, statement string
		contexts        []string
		verdict         int
		reason          string // a part of the reason; "" when nothing is decided
	}{
		{"same, and so", "Yes, the Harbour Kestrels and the Dunmore Giants play in the same league.", leagues, 1, "Northern Premier League"},
		{"not the same, but it is", "No, the Harbour Kestrels and the Dunmore Giants do not play in the same league.", leagues, 0, "unsupported name"},
		{"the same as", "The Harbour Kestrels play in the same league as the Dunmore Giants.", leagues, 1, "Dunmore Giants Northern Premier League"},
		{"a year tied by the verb", "The Harbour Kestrels and the Dunmore Giants were founded in the same year.", leagues, 0, "1921"},
		{"different places", "Ada Brook and Cy Dunn were not born in the same city.", towns, 1, "Turin, Italy"},
		{"a shared country decides no same country", "Ada Brook and Ben Ashe were born in the same country.", towns, -1, ""},
		// Founded, formed, established and started are one relation.
		{"another verb of founding", "Quay Pizza and Harbour Pie were not founded in the same state.",
			[]string{"Quay Pizza is a restaurant chain founded in Arizona in 1997.", "Harbour Pie is a pizza chain that was started in Athens, Georgia in 2008."}, 1, "Athens, Georgia"},
		{"zh quantities differ", "北岭铁路和南屏铁路的设计时速相同。", speeds, 0, "160公里"},
		{"zh places differ", "疾风车队和红岩车队的注册地不相同。", seats, 1, "海南"},
		{"zh the same, wrongly", "疾风车队和红岩车队的注册地相同。", seats, 0, "重庆"},
		// A nationality, a country or a year no word ties: read by its form.
		{"nationalities by demonym", "No, Ada Brook and Cy Dunn do not have the same nationality.",
			[]string{"Ada Brook (born 1961) is an American painter.", "Cy Dunn is a Scottish-Australian sculptor."}, 1, "Ada Brook United States, Cy Dunn Scotland and Australia"},
		{"one nationality by demonym, wrongly different", "No, Ada Brook and Cy Dunn do not have the same nationality.",
			[]string{"Ada Brook (born 1961) is an American painter.", "Cy Dunn is an American sculptor."}, 0, "Cy Dunn United States"},
		{"a country named and one by its demonym", "No, Quaymark and Tidewell are not based in the same country.",
			[]string{"Quaymark leads the cola segment in India.", "Tidewell is an American juice company."}, 1, "Quaymark India, Tidewell United States"},
		{"a first name written longer", "No, Rob Vance and Cy Dunn do not have the same nationality.",
			[]string{"Robert Allan Vance (born 1961) is an American painter.", "Cy Dunn is a Dutch sculptor."}, 1, "Rob Vance United States, Cy Dunn Netherlands"},
		{"a compound demonym shares a country: undecided", "No, Ada Brook and Cy Dunn do not have the same nationality.",
			[]string{"Ada Brook is an Australian painter.", "Cy Dunn is a Scottish-Australian sculptor."}, -1, ""},
		{"a year by its form", "Tidewell and Quaymark were released in the same year.",
			[]string{"Tidewell is a 2009 animated film.", "Quaymark is a 2009 Turkish animated film."}, 1, "Tidewell 2009, Quaymark 2009"},
		{"a year the verb ties comes first", "Harbour Field and Quay Park were opened in the same year.",
			[]string{"Harbour Field is a regional airport. It was opened in 1958.", "Quay Park is an airport on a site closed in 1953. It opened five years later, in 1958."}, 1, "Quay Park 1958"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := Support(c.statement, "", c.contexts)
			if c.verdict >= 0 && ev.Verdict != c.verdict {
				t.Errorf("verdict %d, want %d: %s", ev.Verdict, c.verdict, ev.Reason)
			}
			decided := strings.Contains(ev.Reason, "context gives")
			if !strings.Contains(ev.Reason, c.reason) || decided != (c.reason != "") {
				t.Errorf("reason %q, want it to give the values (%q)", ev.Reason, c.reason)
			}
		})
	}
}

// TestTiedValue: a statement that ties a name to its subject by a word
// ("belongs to the family X") is contradicted by a sentence about the
// subject that ties another name by that word, and a denial of it is backed.
func TestTiedValue(t *testing.T) {
	plants := []string{"Quayberries are shrubs in the genus Quaya of the rose family Rosaceae.", "Harbourwort is a genus of flowering plants belonging to the family Fabaceae."}
	checkSupport(t, []supportCase{
		{name: "another family", statement: "Harbourwort belongs to the rose family Rosaceae.", ctx: plants, want: 0, reason: "context ties Fabaceae"},
		{name: "the same family", statement: "Harbourwort belongs to the family Fabaceae.", ctx: plants, want: 1},
		{name: "a sentence that writes both", statement: "Harbourwort was once placed in the family Rosaceae.",
			ctx: []string{"Harbourwort, once placed in the family Rosaceae, is now in the family Fabaceae."}, want: 1},
	})
	if got, _ := Faithfulness("Do both Quayberries and Harbourwort belong to the rose family Rosaceae?", "No.", plants); got != 1 {
		t.Errorf("a denial the context backs for one name scored %v, want 1", got)
	}
}

// TestTwoRowsOfATable: a statement that gives two rows' values, each after
// its row's name, is read against both rows; the values swapped are a
// conflict.
func TestTwoRowsOfATable(t *testing.T) {
	checkSupport(t, []supportCase{
		{name: "each value after its row", statement: "The Team plan is $49 a month and the Solo plan $19.", ctx: []string{plans}, want: 1, reason: "cell (Solo, Monthly price) gives $19"},
		{name: "values swapped", statement: "The Team plan is $19 a month and the Solo plan $49.", ctx: []string{plans}, want: 0, reason: "number conflict"},
		{name: "a row not named", statement: "The Team plan is $49 a month and the Solo plan $99.", ctx: []string{plans}, want: 0},
		// A number may come before its row's name: "a 10-year inverter
		// warranty", "five years of workmanship cover".
		{name: "each row after its value", statement: "Plus customers get a 10-year inverter warranty and five years of workmanship cover.", ctx: []string{warranty}, want: 1, reason: "cell (Inverter warranty, Plus) gives 10 years"},
		{name: "a value of another row", statement: "Plus customers get a 10-year inverter warranty and fifteen years of workmanship cover.", ctx: []string{warranty}, want: 0},
	})
}

// A record of several measures per row is compared by the measure's own
// piece ("annual deductible $2,000"), as a sentence is, not by its first
// amount (the premium).
func TestComparedMeasureOfARecord(t *testing.T) {
	medical := "2025 Medical Plans\nPlan Basic: employee premium $0 per month; annual deductible $2,000; out-of-pocket maximum $5,000.\nPlan Plus: employee premium $85 per month; annual deductible $500; out-of-pocket maximum $3,000."
	q := "Which medical plan has the lower deductible?"
	checkSupport(t, []supportCase{
		{name: "the plan with the lower deductible", q: q, statement: "Plan Plus has the lower deductible.", ctx: []string{medical}, want: 1, reason: "Plan Basic $2,000, Plan Plus $500: Plan Plus is the lower"},
		{name: "the plan with the lower premium", q: q, statement: "Plan Basic has the lower deductible.", ctx: []string{medical}, want: 0, reason: "Plan Plus has it"},
	})
}

const warranty = "| Coverage | Essential | Plus | Premier |\n|---|---|---|---|\n| Panel product warranty | 12 years | 15 years | 25 years |\n| Inverter warranty | 5 years | 10 years | 12 years |\n| Labour / workmanship | 2 years | 5 years | 10 years |"

// TestValueWrittenWithoutItsSpace: a field's value written whole but for
// the space between its words ("运营专员 欧阳婧") is the value.
func TestValueWrittenWithoutItsSpace(t *testing.T) {
	doc := []string{"文件编号: OPS-POL-012\n起草: 运营专员 欧阳婧\n审核: 社区经理 翟宇航\n批准: 总经理 梁素琴"}
	checkSupport(t, []supportCase{
		{name: "unspaced", statement: "这份规定由运营专员欧阳婧起草", ctx: doc, want: 1, reason: "起草"},
		{name: "another's name", statement: "这份规定由运营专员翟宇航起草", ctx: doc, want: 0},
	})
}

// TestRowNamedAsAWord: a row named by a letter is not named by the a of
// "a month".
func TestRowNamedAsAWord(t *testing.T) {
	tiers := []string{"| Tier | Monthly price |\n|---|---|\n| A | $19 |\n| B | $49 |\n| C | $99 |"}
	checkSupport(t, []supportCase{
		{name: "rows named", statement: "Tier B is $49 a month and tier A $19.", ctx: tiers, want: 1, reason: "cell (A, Monthly price) gives $19"},
		{name: "letters of words name no row", statement: "The cab fee is $49 a month and the bar fee $19.", ctx: tiers, want: 0, reason: "number conflict"},
	})
}

// TestNeighbouringBareCell: a row of bare numbers; one number of the next
// column is the wrong cell, two numbers may be two columns'.
func TestNeighbouringBareCell(t *testing.T) {
	fees := []string{"犬类年保费表（单位：元/年）\n\n| 年龄段 | 一线城市 | 二线城市 | 其他城市 |\n|---|---|---|---|\n| 0–3岁 | 688 | 580 | 496 |\n| 4–7岁 | 912 | 768 | 650 |"}
	channels := []string{"| Package | Total channels | HD channels |\n|---|---|---|\n| Basic | 85 | 20 |\n| Family | 160 | 65 |"}
	checkSupport(t, []supportCase{
		{name: "the right cell", statement: "4–7岁的狗在二线城市的年保费是768元。", ctx: fees, want: 1},
		{name: "the next column's", statement: "4–7岁的狗在二线城市的年保费是912元。", ctx: fees, want: 0, reason: "cell (4–7岁, 二线城市) gives 768"},
		{name: "two columns' values", statement: "The Family package has 65 channels in HD, out of 160 channels in total.", ctx: channels, want: 1},
	})
}

// TestNeighbourInsideTheKey: a Chinese statement writes the value inside
// the words of the key (由技师X制作 for 制作技师); another field's value
// there is named.
func TestNeighbourInsideTheKey(t *testing.T) {
	order := []string{"工单编号: DL-7734\n医生: 蔡立恒\n修复类型: 全瓷冠（氧化锆）\n制作技师: 庞晓雯\n质检: 龙嘉树"}
	checkSupport(t, []supportCase{
		{name: "its own value", statement: "这颗全瓷冠由技师庞晓雯制作。", ctx: order, want: 1},
		{name: "the doctor's name", statement: "这颗全瓷冠由技师蔡立恒制作。", ctx: order, want: 0, reason: `which field "医生" gives`},
	})
}

// TestDifferenceAlsoGivenElsewhere: a difference the answer works out is
// no conflict with the cell it names, though a chunk gives the same figure
// in another role.
func TestDifferenceAlsoGivenElsewhere(t *testing.T) {
	ctx := []string{"| 型号 | 零售价 | 保修 |\n|---|---|---|\n| LC-6 | 1,480元 | 2年 |\n| LC-12 | 2,350元 | 3年 |", "保修需在线注册产品序列号；未注册的按1年保修处理。"}
	ev := Support("LC-12保修3年，比LC-6的保修2年多出一年。", "", ctx)
	if ev.Detector != "" {
		t.Errorf("the difference 3年 − 2年 is a %s: %s", ev.Detector, ev.Reason)
	}
}

// TestValuesOfTwoInOneSentence: a sentence that names both items gives each
// the clauses from its name to the other's ("A (born 3 May 1950) ... B (born
// June 2, 1971)"), a year there before a day.
func TestValuesOfTwoInOneSentence(t *testing.T) {
	q := "Who is older Tom Reed or Ann Lee?"
	ctx := []string{"Tom Reed (born 3 May 1950) is an English singer, best known for the band Quayside, the Mk.Ann Lee (born June 2, 1971) is an American actor."}
	checkSupport(t, []supportCase{
		{"the elder", q, "Tom Reed is older.", ctx, 1, "1950"},
		{"the younger", q, "Ann Lee is older.", ctx, 0, "1971"},
	})
}

// TestParallelConjuncts: "his B.A. from X and his Ph.D. at Y" ties each
// degree to its own school; a statement that gives one the other's is a
// name conflict, where a list or two verbs joined by "and" are not read so.
func TestParallelConjuncts(t *testing.T) {
	q := "In what city did Tom Reed get his doctorate?"
	ctx := []string{"Tom Reed (born 1953) is a scholar of political economy. He received his degree from Quay College and his doctorate at Harbour University."}
	list := []string{"The pass can be used in the following countries: Norland, Quayland, Estmark and Westmark."}
	checkSupport(t, []supportCase{
		{"the school of the doctorate", q, "Tom Reed received his doctorate at Harbour University.", ctx, 1, ""},
		{"the other degree's school", q, "Tom Reed received his doctorate from Quay College.", ctx, 0, "not with Quay"},
		{"a list's last two items", "", "The pass can be used in Estmark.", list, 1, ""},
	})
}

// TestCountryNamedWithinAnother: of two country names that start at one
// place, the longer is read (印度尼西亚 is no 印度), whatever the map's order.
func TestCountryNamedWithinAnother(t *testing.T) {
	for range 20 {
		if got := nationIn("该公司总部位于印度尼西亚雅加达。", func(string) bool { return false }); got != "Indonesia" {
			t.Fatalf("nationIn = %q, want Indonesia", got)
		}
	}
}
