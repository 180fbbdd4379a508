/*
Package offline is the offline lexical judge: deterministic, needing no
endpoint, model file or network, and the default when no endpoint is set. It is
named "offline (lexical)" wherever results are shown, and what it cannot know
(paraphrase, a real answer relevancy) it reports as unsupported.

# Algorithm

Analysis (analyze.go, package lex). A text is stripped of control sequences,
Markdown, citation markers (package plaintext) and answer frames ("答案是X。": X is
read), its numerals normalised (full-width ４０ -> 40; package norm: 三十天 -> 30天, 两周 -> 14天, 1.5万 ->
15000, 百分之八十 -> 80%, twenty-four -> 24, "a 30-day period" is 30 days and "a three-year cycle" 3 years, 半年 -> 6个月,
5 pm and 下午5点 -> 17:00; 日/天, 小时/h/hours, 元/RMB/¥/yuan, 公斤/千克/kg are one unit
each, 公斤 apart from 公里, and 30 lb is another quantity than 30 kg, 64平方公里 than
64公里; 2年 is 24个月, 3 weeks 21 days, 2天 48小时, 1.5公里 1500米 and 110 cm 1,100 mm, in
coverage and in the reason; 一个半小时 -> 90分钟, 两个星期 -> 14天, a quarter of an hour
-> 15 minutes, 三块五 -> 3.5元, 早6点 -> 06:00, 万分之五 -> 0.05%, 120名 is 120人,
1.5倍 is 150%, $1.2M and $1.2 million are 1200000, 三万五 35000; a sum of money is in
its currency, however written ("USD 372,000", "25 US dollars", €60, "EUR 60"), and
another currency is another amount; "a 10-calendar-day hold" is 10 days;
"between 95 and 110 cm" gives both in cm:
words/same_quantities.txt, same_units.txt, unit_kinds.txt, unit_factors.txt) and cut into clauses
at commas, semicolons and colons. Each text becomes a span of features:

	h:  Chinese character bigrams without particles    "纳税人" -> h:纳税 h:税人
	u:  Chinese content characters (short statements)  u:纳 u:税 u:人
	w:  English word stems, stop words left out       "located" -> w:locat
	    (a number's word too, and an ordinal's: 8 -> w:eight, 5th -> w:fifth)
	    (not a capital letter naming a row: Plan A, A 套餐)
	n:  numbers with the unit after them (天, %, days; "3 additional days"
	    is 3 days), weekdays, demonyms (as their country: "a Japanese
	    author" against "Chilean"; not one of a name, "Excuse My French";
	    one no context gives is left to coverage), and the key of the field
	    they are in; a date
	    is a year, a month and a day in each of its forms (2024-06-01,
	    2024年6月1日, 1 June 2024); the month of "June" is no duration

with its clauses, its quantities and its names (capitalised English words that
do not open it), for the negation, number and name detectors.

Statements (split.go, package plaintext). An answer is split into sentences by
the Unicode sentence rules (UAX #29), then at semicolons and line breaks; a
Chinese sentence also at its commas, short or subordinate clauses (转为一般纳税人后,
根据公司制度) merged into the clause that asserts; an English one at ", and"/",
but"... when both sides are claims of their own, not at the "and" or "or" that
closes a serial list ("an actress, dancer, and singer"; a piece of at most two
words and no number after the last comma). A bare yes or no is the
question's proposition affirmed or denied; a "yes" that opens a longer answer
affirms it too, as a statement of its own (not for a question whether two
things share something, which the rest of the answer says by their value).

Context sentences (support.go, structured.go, fields.go, packages records and
phrase). Each chunk is split the same way; a sentence whose subject is a pronoun
("In 2007, he was...") or a description ("The mall is...") carries the name the
sentence before it opens on. A structured chunk (Key: value records, Markdown
tables, Q:/A: FAQs) adds each record as one more sentence, so a statement that
joins two fields of one record is covered and one that joins two records is not,
and its cells (read with the row and column headers and the caption: "总监 杭州:
150元/天"; "北京/上海/深圳" gives a cell per city; a bare number takes the unit its
header gives in brackets, "经理级（元/晚）") and "Key: value" fields.

The support test (support.go), of one statement against the sentences:

 0. cells and fields: a statement that names a cell's row and column, or a
    field's key (a part of it: 开户行 of 开户行及账号), is checked against that value
    alone (a field's value goes on past a semicolon up to the next field:
    "53座大巴：半日1,500元；全日2,400元" gives both). A number of the value's unit, or of
    a unit it converts to (weeks for days; not years or months, which a date is
    written in), with another value (a span, "14 days", 14天, is none beside a
    date's day) (for a bare number,
    any number no other field of the record gives, or the next bare cell of the
    row when it is the statement's one number; numbers of the keys that name the
    row are no value, nor is an identifier's, "NV-INV-20931"), or words written in place of the value (建设银行 for 中国银行; a lowercase English
    word beside it is none: "… Cy Dunn gave the final approval"),
    are a conflict naming the cell or field, unless the same key of another
    record gives the statement's value, or another row the statement names right
    before the number does ("Team is $49 and Solo $19"), or, when no row is named
    before it in its clause, a few words after it ("a 10-year inverter warranty
    and five years of workmanship cover"); so is another field's
    value written where the named field's belongs ("assigned to Tom Becker"
    where "Assigned to" is Priya Raman). A statement that names a table row
    but not the column gives another row's value when it says what tells that
    row's cell in a column from its own, and not what tells its own (fields.go,
    otherRowsValue; a word of its own row's name or cells tells nothing),
    whether or not its best sentence covers it. A statement that names no
    word of the key of the list line it matches, while the answer's
    statements before it name another key of that list, gives that key's
    thing this line's rule ("… a Tier A supplier, so every lot is inspected
    at normal level" against "- Tier B: …"; otherTopic). A
    statement that says the value, and
    whose other words the record or table has (coverage 0.5), is supported. A
    key is named by KeyNamed of its features (a word naming its value's kind,
    "date" or 金额, by a value of that kind: words/value_kinds.txt); of fields
    named alike, those with the most words no other key of the record has
    ("delivered" of "Delivery date", not "Order date"). A statement may leave a
    table's column to the answer's statements before it ("香港属于港澳台地区。P系列在
    该地区质保三年。"). A statement that gives two or more rows' values, each after its
    row's name, is read against those rows together.
 1. coverage: the weighted share of the statement's features one sentence has (a
    pronoun's name counts as written). Features the question also has weigh
    QuestionEchoWeight: repeating the question proves nothing; but a word of the
    question right next to a word of the statement's own (chaired of "The
    ceremony was chaired by X" for "Who chaired ...?") ties the claim to the
    question and weighs in full (a name excepted). Common discourse words
    (words/common_words.txt: according, policy, 根据, 规定, 综上...) and the given
    name of a transliterated name (南希 of 南希·佩洛西) count only where the sentence
    has them; a clause of nothing else joins the next statement. A pronoun after
    a semicolon stands for what the piece before it is about. A Chinese bigram
    written with one character between (账号需通过 for 账号通过) is found, and so is the
    seam of two words the answer joined (付值 of 支付值班费 against 支付 ... 值班). Short
    Chinese statements are measured on characters. The reason of a low coverage
    lists the words missing.
 2. negation: a clause of the best sentence (or, when it does not cover the
    statement, of any) that negates what an aligned clause of the statement
    affirms, or the reverse. Bounds (不超过, "no more than"), words that only look
    negated (不断, 非常) and a "No." that opens an answer (it replies to the
    question) negate nothing. A Chinese negation's predicate is read after the
    particles and modals that open it (不在保修范围内 negates 保修).
 3. numbers, against every chunk: a quantity the best sentence gives with the
    same unit and another value is a conflict unless a sentence that covers the
    statement gives it as the statement does; when the statement is otherwise
    covered, one no sentence gives is one too. A total of two or more, or a
    difference of two, of the quantities the answer states and the context gives
    ("3天 ... 7天, 共计10天", "99元 ... 45元, 贵54元") is given, with the arithmetic in
    the reason (its unit's word found with its number), and so is a given rate
    times the answer's own counts ("$60 × 3-day = $180"; no date's parts), and a
    date that a written date moved by a given span makes ("30 June 2025 − 90
    days = 1 April 2025"; hours that make whole days
    are days: 48 hours, 72小时), and a count of the items the
    answer lists after it ("4样：A、B、C和D"; lists.go) unless the covering
    sentence lists another number after its colon. A quantity no sentence gives
    is named first. A statement that lists items after its colon is checked item
    by item against a list the context gives one item a sentence after a lead-in
    with a colon (lists.go: each item found, with its numbers; its count the
    list's, items of some cases only aside). A number's bound is read from the
    words next to it (bounds.go, words/bound_at_most.txt, bound_at_least.txt:
    "under 8 kW", 不超过600元, 10年以下; "over", 满, 以上; a negation before it
    turns it): a statement that gives the best sentence's number with the other
    bound, and says nothing the sentence does not, is a conflict unless another
    covering sentence gives the number as it does; of a sentence that gives the
    number twice, the clauses with the statement's other numbers decide. A
    number of a clause whose condition the question's case does not meet is a
    conflict too: the clause (or the one before it) bounds a quantity of a unit
    the question gives, and the question's value is outside it ("超过2小时每小时
    收费5元" for a stay of 一个半小时; a table row's other cells are its cell's
    condition), unless the statement gives the bound.
 4. names: a covered statement whose names the sentence does not mention (a
    swapped Michigan for Minnesota), or does not write as one ("Rainbow Estate"
    from "Rainbow Terrace ... Lullwater Estate"), or whose sentence has its
    names and none of what it claims of them, is not supported. A name of the question may be spelled
    out in a neighbour of a sentence that refers to it by a pronoun, and is what
    a chunk cut from its name describes ("The game was released ..." with no
    name before it). A name of the question that the statement opens on
    (subject.go) is its topic, not a premise: the sentence must name it whole,
    or write its head as a name ("Lee" for Ann Lee).
 5. supported when coverage >= SupportThreshold and no detector fires, or >=
    AnchoredThreshold when the sentence gives all the statement's own numbers
    and names and every word it repeats from the question, and it lacks at most
    two English words of its own (the answer's phrasing: "permits up to 25
    users at the same time" against "allows up to 25 concurrent users"). Before
    it, roles (roles.go, package phrase): a sentence that gives parties a part
    each ("reviewed by Procurement and approved by Finance") refutes a statement
    that says one part's verb with another part's party, or gives a part to
    another name the sentence writes ("B wrote it" against "written by A ... the
    version by B", "由B承担" against "由A承担，但因B"); so does one of two parallel
    phrases joined by "and" ("his B.A. from X and his Ph.D. at Y") against a
    statement that gives one phrase's word with the other's name (conjunctConflict);
    so does a sentence whose clause with the statement's own value (a number, an
    English name) lacks the word that ties it in the statement, while another
    clause gives that word to another value of its kind ("于2016年全线贯通，并于
    2018年投入使用" for "2018年贯通"; clauseConflict).
    Shares are roles of quantities: a
    sentence cut at its joins into pieces with a quantity each ("30 days for
    staff and 60 days for managers"; a year names a piece as a word does) gives
    each piece's party its quantity (a lead-in before a colon is every
    piece's; a quantity in brackets gives no share, a number's word names no
    party), and
    a statement that names one party with another's quantity is a conflict.
 6. two chunks: a statement no sentence covers is supported by two sentences of
    different chunks together when their union covers it (a total the answer
    computes from their terms found in it), each gives a quantity of it the
    other does not, and no detector fires on the union ("supported by [1] and
    [2]"; a share either sentence gives another party is the pair's
    conflict); not when the statement gives a quantity of one to a name only
    the other has, where that one gives another value of its unit (a quantity
    belongs to the name a preposition after it gives, "63 ms in Lisbon", else to
    the last one before it). Two sentences of one chunk are joined only for
    the terms of a total or difference the statement computes, each written
    among words of its own sentence, not only of the other's (swapped). Two
    prose sentences of any chunks that write one
    name of the statement, its link ("Walter Coy" in a film's cast, "Walter
    Darwin Coy" opening the next), support a statement the best of them
    covers but for names the other gives (bridged): the link is written by its
    first and last words (a word two names share, "Airport", links nothing),
    and each such name is tied in the statement by a word the other sentence
    has ("born in X" is not "studied in X").
 7. the reference's bar: a statement of the reference (context recall) that
    fails only on coverage is attributed when the coverage is above
    RecallThreshold in a sentence that has its names and two of its own
    words, or in two sentences that each give words of it the other does
    not: a reference is written in its own words.

For example:

	statement  "Polaris is based in Michigan, USA."     content: Polaris, based, Michigan, USA
	sentence   "Polaris is based in Roseau, Minnesota, USA."
	coverage   3 of 4 = 0.75 >= 0.67, but the name Michigan is not there
	verdict    0: unsupported name

The trace names what fired (StatementVerdict.Conflict: number, negation, name);
the diagnosis reads an answer with a number conflict as generation's failure,
whatever its faithfulness.

Comparisons (compare.go; package phrase reads the comparative,
words/comparatives.txt: higher, earliest, 更多, 最低...). A statement that compares,
or an answer that only names an item of a question that does, is decided by
values when the context gives every item one: the alternatives of the question
("A or B", "A还是B", "A和B，哪个"), or the rows of the table whose row the statement
names (of three rows or more, only a superlative decides). An item's value is
the first quantity of the comparison's kind (a year for points in time, else one
with a unit, no year; other units decide nothing) in the clause saying most of what is
compared (a measure's adjective or noun too: "longer" of "212 metres long" and "a total
length", 更长 of 全长; for a row's value, the measure as the statement says it: "annual
deductible $2,000", not the premium before it) of the first piece that names it and no other item, or names none in a
run that opens on it; in a sentence that names them all, in the clauses from its
name to another's ("A (born 1951) ... B (born December 29, 1995)"). The statement is supported when its item holds the extreme
value and the rest is covered (or is the other items: "A比B更长"), a number conflict when another item does
("context gives Basic $1500, Plus $500: Plus has it"). A statement that two
things have the same value of something, or not ("A and B were born in the same
city", "A ... the same firm as B", "甲和乙的注册地不相同"), is decided by the value the
context gives each, in a sentence or chunk about it alone: the name or year
after the statement's own verb ("born in Sligo, Ireland"; founded, formed and
started are one: words/same_relations.txt), else after what has the value ("the
family Araceae", 注册地为海南); when no sentence ties one by the word, a nationality or
country is read by its form (the country of a demonym, "an American musician",
"Scottish-Australian" being both, or a country the sentence says it is in or
from: words/countries.txt) and a year is the first the sentence writes ("Up is a
2009 film"). Values are the same when their first names are written
alike and differ when they share no word; "Lyon, France" and "Paris, France"
decide nothing. So do a name tied to what a statement opens on ("A belongs to
the family X") and the one a sentence about A ties by the word (tiedConflict): a
name conflict.

Restatements (restate.go). A statement that restates a wh-question around its
answer ("The CEO of X in 2021 is A.") that fails on coverage or names is tested
once more on what it adds: its residual ("A"), as a short answer, in a sentence
that names one of the question's things, or is linked to one that does in at
most two hops, each between a sentence that opens on a name and one that writes
it, or two that write one name of two or more words (first and last word
suffice, or a short form of the first name: "Pam Veasey" names Pamela Renea
Veasey; a company's name without its suffix, "BellSouth's" of BellSouth
Corporation; one word shared links nothing; a name ends at a possessive, so
"Orvel Cloud's Basic plan" writes two), or that repeats four of the question's words
itself (RestateEcho); not one that writes a lowercase word of the residual
only as a word of a name ("brother" in "Band of Brothers"). A sentence brings
its paragraph's run: the prose sentence that opens on a name and those after
it that open on none ("Mount Quay Circuit is a track. The 6.2 km long track
..."; a table's next row is another's). A residual found in a sentence
without the word that ties it to the statement ("distributed" of "...
distributed by A", read in "produced by A") is in another role when a linked
sentence ties another name by it, in the TieWords words after the word
(phrase.RelationWord, TiedBy; after a copula, the word is the subject's noun:
"director" of "The current director of X is A"). A "which"/"what" question asks for a kind
(phrase.AnswerType: "which animated television series" a television series):
when the residual's own sentence names another thing as of that kind
(phrase.TypedNames: "the animated television series South Park"; "Target is the
second-largest discount store retailer …, behind Walmart"), a residual that is
not one is not the answer there; nor is a bare answer that adds only names to
the question ("The answer is Walmart.") in the sentence that covers it.

A Chinese designator (甲乙丙丁, 东西南北, 上下, 男女, 内外, 前后) the best sentence
writes another in place of, before the same character, while another sentence
writes the statement's ("乙供应商交货期60天" against "甲供应商交货期为60天"), gives
one party's value to another (hanPartySwap).

A Chinese statement that restates the question around an answer of its own
(the run of its characters in no pair the question writes: 谢婉婷 of
"江岸博物馆的首任馆长是谢婉婷") is refused when its best sentence lacks a pair of
characters that ties the answer in the statement (within HanTieRunes of it:
首任馆长) and a clause of another sentence has them all with a value of its
own (hanroles.go): not the pairs of what the chunk opens on (its topic), nor
one pair alone, nor a clause that gives another value of a number the
question states, nor where the best sentence opens its chunk on a
demonstrative (该门诊: the chunk is cut from the question's name).

A statement whose subject carries a claim of its own, set off by commas (a
non-restrictive relative clause or an apposition: "Arthur Venn, who took over
the works in 1899, studied at the Dunmore Institute"; plaintext.Unnest), that
fails the test is supported when both claims are, each by a sentence of its own
(nested); it stays one statement, so a supported aside does not dilute a wrong
claim. A sentence names a person by the last word of a name its chunk writes
whole ("Venn had studied …" after "his nephew, Arthur Venn"; capitalised, so
"a research university" is no "Stanford University").

Coordination (coordinate.go). A statement whose subject coordinates two names
("A and B are both painters", "甲和乙都设在上海") that fails the test is read as its
conjuncts, each supported only by a sentence that names its own name; the second
name ends where a sentence writes it as one (with the lowercase words it writes
after it: "Sake bomb"); a Chinese name is mentioned by its whole name in its
chunk so far, not by a pair of its characters. A collective predicate (the same,
between, married, 相同, 之间: words/collective.txt) is not distributed. A "both"
(两家机构…都) that names neither stands for the two names the question coordinates,
and holds only if each conjunct does, however well the whole matches; "only A"
of one of them holds when the context contradicts it of the other. A denial
("no" to a yes/no question, or "A and B are not both X") is supported when a
detector fires on a sentence that covers the proposition and names all it names
(or on two that give its things their values), or on one of its conjuncts (a
value conflict needs the rest covered, not its value's word); the question
presupposes none of the proposition it asks, so its words are checked too;
silence supports none.

# Metrics

Faithfulness: supported statements over statements. Context recall: the
reference's statements attributed by the same test; one that is not, but that a
sentence covers at the reference's bar with three of its own words and
contradicts in nothing, whose words the contexts together mostly hold with each
of its names and numbers, or whose two or more amounts the contexts all give as
it writes them, is found in part, which the diagnosis does not count against
retrieval. Context precision (and utilization): a chunk is useful when it
supports a statement of the reference (the answer). Factual correctness: the
test both ways between answer and reference. Answer relevancy is unsupported: no
questions are generated, and the cosine of the answer's and the question's
embeddings (kept in the trace) only counts shared words; an evasive phrase in
the answer is kept as its noncommittal hint. Noise sensitivity is not computed.

# Embeddings, entities, word lists

Embeddings (embed.go, package vector): L2-normalised hashed vectors of English
stems and their character trigrams, Chinese characters and bigrams, and numbers;
stop words left out. Entities (package entity): found by surface patterns. Word
lists (package words) are the files of words/, embedded. A team adds its own
(words.ReadLexicon, --offline-lexicon FILE): lines "noncommittal: PHRASE"
(建议您咨询HR) and "same: A = B" (A read as B before analysis, 一个账期 = 30天).

# What it does not do

It reads no question template: no rule knows a benchmark's question shapes, and
it shares no code with the constructions that phrase the answers it is
calibrated on (tools/calibrate). A rule is added only if it raises a held-out
row of that calibration; scripts/ablation.sh turns each check off in turn (the
ablation build tag) and prints what it earns.
*/
package offline
