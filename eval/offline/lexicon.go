package offline

// Word lists of the lexical judge. They are deliberately small and explicit:
// the judge is a transparent first pass, and a user reading a reason should
// be able to predict it from these lists.

// englishStop are function words that carry no content of their own; they
// are ignored by the support test and the embeddings. Negation words are not
// here: they are markers, see englishNegation.
var englishStop = setOf(
	"a", "an", "the", "and", "or", "but", "if", "then", "so", "than", "that", "this", "these", "those",
	"there", "here", "of", "in", "on", "at", "to", "for", "from", "by", "with", "about", "as", "into",
	"onto", "over", "under", "after", "before", "between", "through", "during", "within", "upon",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "doing",
	"have", "has", "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might",
	"must", "it", "its", "it's", "they", "them", "their", "theirs", "he", "him", "his", "she", "her",
	"hers", "we", "us", "our", "ours", "you", "your", "yours", "i", "me", "my", "mine", "who", "whom",
	"whose", "which", "what", "when", "where", "why", "how", "also", "very", "just", "only", "any",
	"all", "each", "every", "some", "such", "both", "either", "other", "another", "more", "most",
	"much", "many", "yes", "please", "one's", "s", "t", "via", "per", "etc", "up", "out", "off",
	"again", "once", "same", "own", "too", "well", "still", "even", "ever", "yet", "while", "because",
	"since", "until", "whether", "answer", "question", "known",
)

// englishNegation are the words that negate a clause.
var englishNegation = setOf(
	"not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor", "cannot",
	"unable", "neither", "nowhere",
)

// englishBoundNegation are phrases that look negated but state a bound
// ("no more than 600") and must not fire the negation detector.
var englishBoundNegation = []string{"no more than", "not more than", "no less than", "not less than",
	"no later than", "not later than", "no earlier than", "not exceeding", "not only", "no longer than",
	"no fewer than", "not fewer than"}

// chineseNegation are the negation markers, longest first so that 不需要 is
// recognised before 不.
var chineseNegation = []string{"不需要", "不需", "不会", "不能", "不得", "不变", "不用", "不是", "没有", "无需", "无须",
	"无法", "并非", "未", "不", "没", "无", "非", "勿", "别"}

// chineseNotNegation are words that contain a negation character without
// negating anything (不断 "continuously", 非常 "very", 未来 "future") or that
// state a bound (不超过 "at most"); they are masked before marker search.
var chineseNotNegation = []string{"不仅", "不但", "不断", "不久", "不少", "不过", "不错", "不同", "不管", "不论",
	"无论", "非常", "未来", "无线", "除非", "别人", "别的", "分别", "特别", "类别", "级别", "区别", "性别", "识别",
	"个别", "告别", "鉴别", "辨别", "不满", "未满", "不超过", "不低于", "不少于", "不高于", "不多于", "不晚于", "不早于", "不足",
	"非法", "南非", "非洲", "无锡", "未央", "毫无疑问", "无不", "是非", "无所不", "无处不", "无时无刻不",
	"不可思议", "不得不", "未免", "无数", "无限"}

// chineseParticles are function characters; a bigram containing one is not
// content (的员, 了解 would otherwise inflate overlap).
var chineseParticles = setOfRunes("的了吗呢吧啊么着之而及与或并且就都也还又很太是在于被把")

// chineseStopBigrams are frequent function words.
var chineseStopBigrams = setOf("我们", "你们", "他们", "可以", "如果", "因为", "所以", "但是", "这个", "那个",
	"这些", "那些", "什么", "怎么", "如何", "是否", "哪些", "多少", "已经", "需要", "应该", "进行", "根据",
	"关于", "对于", "以及", "或者", "还是", "一个", "没有", "会的", "是的", "请问", "您好", "一下")

// changeWords say that something changes; they make the reason for a
// conflict with 不变 ("unchanged") read naturally.
var changeWords = []string{"变更", "改变", "变化", "更改", "重新", "变动", "更换", "会变", "要变"}

var monthWords = setOf("january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
	"sep", "sept", "oct", "nov", "dec")

var weekdayWords = setOf("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

// noncommittalPhrases show an evasive answer. They are matched on the
// lowercased answer with typographic apostrophes folded.
var noncommittalPhrases = []string{
	"不确定", "无法回答", "不知道", "不清楚", "无法确定", "无法判断", "不好说", "视情况而定", "没有相关信息",
	"无法提供", "无法得知", "暂无相关", "未找到相关", "不太了解", "我不能回答", "说不准",
	"i don't know", "i do not know", "not sure", "it depends", "i'm unable to", "i am unable to",
	"cannot answer", "can't answer", "no information", "don't have enough information",
	"do not have enough information", "unclear", "i cannot say", "i can't say", "hard to say",
	"no idea", "not certain", "unable to determine", "cannot determine", "can't determine",
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func setOfRunes(s string) map[rune]bool {
	m := map[rune]bool{}
	for _, r := range s {
		m[r] = true
	}
	return m
}
