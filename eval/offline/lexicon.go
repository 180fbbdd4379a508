package offline

import (
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// englishStop are function words; negation words are markers, not here.
var englishStop = phrase.EnglishStop

var englishNegation = words.Set("english_negation")

// englishBoundNegation look negated but state a bound ("no more than 600").
var englishBoundNegation = words.List("english_bound_negation")

// chineseNegation are the negation markers, longest first (不需要 before 不).
var chineseNegation = words.List("chinese_negation")

// chineseNotNegation have a negation character without negating (不断, 非常)
// or state a bound (不超过).
var chineseNotNegation = words.List("chinese_not_negation")

var chineseParticles = phrase.ChineseParticles

// changeWords say that something changes, for the reason of a conflict with 不变.
var changeWords = words.List("change_words")

var weekdayWords = words.Set("weekdays")

// noncommittalPhrases show an evasive answer, matched lowercased.
var noncommittalPhrases = words.List("noncommittal")
