package offline

import "github.com/ragscope/ragscope/eval/offline/words"

// englishStop are function words that carry no content of their own; they
// are ignored by the support test and the embeddings. Negation words are not
// here: they are markers, see englishNegation.
var englishStop = words.Set("english_stop")

// englishNegation are the words that negate a clause.
var englishNegation = words.Set("english_negation")

// englishBoundNegation are phrases that look negated but state a bound
// ("no more than 600") and must not fire the negation detector.
var englishBoundNegation = words.List("english_bound_negation")

// chineseNegation are the negation markers, longest first so that 不需要 is
// recognised before 不.
var chineseNegation = words.List("chinese_negation")

// chineseNotNegation are words that contain a negation character without
// negating anything (不断 "continuously", 非常 "very", 未来 "future") or that
// state a bound (不超过 "at most"); they are masked before marker search.
var chineseNotNegation = words.List("chinese_not_negation")

// chineseParticles are function characters; a bigram containing one is not
// content (的员, 了解 would otherwise inflate overlap).
var chineseParticles = words.Runes("chinese_particles")

// chineseStopBigrams are frequent function words.
var chineseStopBigrams = words.Set("chinese_stop_bigrams")

// changeWords say that something changes; they make the reason for a
// conflict with 不变 ("unchanged") read naturally.
var changeWords = words.List("change_words")

var monthWords = words.Set("months")

var weekdayWords = words.Set("weekdays")

// noncommittalPhrases show an evasive answer. They are matched on the
// lowercased answer with typographic apostrophes folded.
var noncommittalPhrases = words.List("noncommittal")
