package norm

import "testing"

func TestNumerals(t *testing.T) {
	for in, want := range map[string]string{
		"三十天":     "30天",
		"两个月":     "2个月",
		"十五万元":    "150000元",
		"1.5万元":   "15000元",
		"百分之八十":   "80%",
		"两周":      "14天",
		"3周":      "21天",
		"第三周":     "第三周",
		"一般情况下统一": "一般情况下统一",
		"万一":      "万一",
	} {
		if got := Numerals(in); got != want {
			t.Errorf("Numerals(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEnglishNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"within twenty-four hours":   "within 24 hours",
		"Forty five calendar days":   "45 calendar days",
		"two hundred seats":          "200 seats",
		"three thousand dollars":     "3000 dollars",
		"one two three":              "one two three",
		"twenty days":                "twenty days",
		"a plenty-five of something": "a plenty-five of something",
	} {
		if got := EnglishNumbers(in); got != want {
			t.Errorf("EnglishNumbers(%q) = %q, want %q", in, got, want)
		}
	}
}
