package prompts

import "unicode"

// zhShare is the share of Han characters among language units above which
// the text is taken as Chinese.
const zhShare = 0.35

// DetectLang returns "zh" when the texts are mainly Chinese, else "en".
//
// It counts units, not letters: each Han character is one unit and each run
// of other letters (a word) is one unit. Counting letters would call
// "请问 Kubernetes Ingress Controller 和 Nginx 有什么区别" English, because a
// Chinese word is one or two characters while an English product name is
// ten letters. With units, a Chinese question full of English names stays
// Chinese, and an English text quoting a Chinese name (三个字 among a dozen
// words) stays English.
func DetectLang(texts ...string) string {
	han, words := 0, 0
	for _, t := range texts {
		inWord := false
		for _, r := range t {
			switch {
			case unicode.Is(unicode.Han, r):
				han++
				inWord = false
			case unicode.IsLetter(r) || (inWord && unicode.IsMark(r)):
				if !inWord {
					words++
					inWord = true
				}
			default:
				inWord = false
			}
		}
	}
	if han == 0 || float64(han) < zhShare*float64(han+words) {
		return "en"
	}
	return "zh"
}
