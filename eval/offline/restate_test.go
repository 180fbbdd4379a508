package offline

import (
	"strings"
	"testing"
)

// A statement that restates a multi-hop question around its answer adds
// only the answer to the question; RAGAS's statement step would split it
// into the question's premise and the claim. The claim is checked as a
// short answer would be, in a sentence about one of the question's names.
func TestRestatementIsTheQuestionAroundItsAnswer(t *testing.T) {
	q := "Who directed the 2004 film that was shot at the Harbor Diner in Portland?"
	linked := []string{"The Harbor Diner is a restaurant in Portland. It appeared in the 2004 film Night Shift.",
		"Night Shift is a 2004 comedy film directed by Lena Park and starring Tom Reed."}
	unlinked := []string{"The Harbor Diner is a restaurant in Portland. It opened in 1950.",
		"Night Shift is a 2004 comedy film directed by Lena Park."}
	// What the statement adds may open with a name ("Slipknot" of "In
	// 2006 the arena used a song by Slipknot as its theme"): it is checked
	// as a name, not as a sentence's first word.
	arenaQ := "Which band's song was used as the theme at the Quay Arena in 2006?"
	arena := []string{"\"Tide\" is a song by the rock band Quay Road. \"Tide\" was used as the official theme for the Harbour Cup event at the Quay Arena in 2006."}
	// A name the answer's sentence lists beside the answer is another
	// candidate: what the contexts say of it is not said of the answer.
	stationQ := "Which Quay FM artist is from Columbus, Ohio?"
	station := []string{"Quay FM is a radio station that plays artists such as Harbour Lights, Twenty Pilots and others.",
		"Twenty Pilots is an American duo from Columbus, Ohio."}
	// The question's first word is one of its names ("Jinchang and
	// Liling, are located in which country?"): a sentence about the one
	// does not say it of the other.
	twoQ := "Harbourton and Quayside, are located in which country?"
	two := []string{"Harbourton is a city in Kent, near the border with Wales.", "Quayside is a town in Kent, on the coast."}
	popQ := "What was the population of the town in Kent County at the 2010 census?"
	popApart := []string{"Pine Hill is a town in Kent County.", "The population was 2,523 at the 2010 census."}
	albumQ := "Who released their second album with a band from Dover, Kent?"
	albumApart := []string{"Harbour Songs 2 is the second album in a series of live releases by Ann Lee. Self-released in 2004, it features appearances by Bo Chen.",
		"The Quay is an English rock band formed in Dover, Kent in 1998."}
	trackQ := "What is the length of the track where the Harbour 12 Hour was staged?"
	track := []string{"The 2013 Harbour 12 Hour was staged at Mount Quay Circuit. Mount Quay Circuit is a racing track in Harbourton. The 6.2 km long track is a public road when no race is run."}
	themeQ := "In what year was the arranger of the Quay Theme born?"
	theme := []string{"The current arrangement of the Quay Theme is by Alf Clausen.", "Alf Heiberg Clausen (born 12 March 1941) is an American composer."}
	housingQ := "How many days of temporary housing does a G8 employee get?"
	housing := []string{"| Grade | Temporary housing |\n|---|---|\n| G7–G8 | 45 days |\n| G9+ | 60 days |"}
	checkSupport(t, []supportCase{
		// The answer's sentence is a hop or two from one about the premise.
		{"the second hop opens on what the first names", q, "Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland.", linked, 1, "Lena Park"},
		{"a sentence goes on about what the one before opens on", trackQ, "The length of the track where the Harbour 12 Hour was staged is 6.2 km.", track, 1, "6.2 km long track"},
		// A paragraph goes on about what it opens on until a sentence
		// opens on another name: the answer may be a few sentences on.
		{"a paragraph goes on about its subject", "Who manages the club that plays at Quay Lane?",
			"The club that plays at Quay Lane is managed by Ann Lee.",
			[]string{"Quay Lane is a football ground in Dover. It has been the home of Harbour United since 1921.",
				"Harbour United F.C. is a semi-professional football club. The club reached the top division in 2015. It is managed by Ann Lee."}, 1, "It is managed by Ann Lee"},
		{"a paragraph ends where another name opens a sentence", "Who manages the club that plays at Quay Lane?",
			"The club that plays at Quay Lane is managed by Ann Lee.",
			[]string{"Quay Lane is a football ground in Dover. It has been the home of Harbour United since 1921.",
				"Harbour United F.C. is a semi-professional football club. Dover Rovers is another club. It is managed by Ann Lee."}, 0, ""},
		{"a sentence about the premise goes on in the next", "The 2019 Harbour Bowl was sponsored by a company based in what city?",
			"The 2019 Harbour Bowl was sponsored by a company based in Dover.",
			[]string{"Sponsored by the parts retailer Quayco, it is officially known as the Quayco Harbour Bowl. The company is based in Dover, Kent."}, 1, "The company is based in Dover"},
		{"a name written with its middle name", themeQ, "The arranger of the Quay Theme was born in 1941.", theme, 1, "Alf Heiberg Clausen"},
		{"a table's next row is another grade's", housingQ, "A G8 employee gets 60 days of temporary housing.", housing, 0, ""},
		{"the album's sentences name no band of Dover", albumQ, "Ann Lee released their second album with a band from Dover, Kent.", albumApart, 0, ""},
		{"an answer the contexts do not give", q, "Mara Quill directed the 2004 film that was shot at the Harbor Diner in Portland.", linked, 0, ""},
		{"nothing ties the film to the diner", q, "Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland.", unlinked, 0, ""},
		{"a premise changed by the statement", q, "Lena Park directed the 2009 film that was shot at the Harbor Diner in Portland.", linked, 0, ""},
		{"an added name that opens the residual", arenaQ, "In 2006, the Quay Arena used a song by Slipknot as the official theme for the Harbour Cup event.", arena, 0, ""},
		{"a name listed beside the answer is no link", stationQ, "Harbour Lights is from Columbus, Ohio.", station, 0, ""},
		{"the listed name's own answer", stationQ, "Twenty Pilots is from Columbus, Ohio.", station, 1, ""},
		{"the question's first name is a premise too", twoQ, "Harbourton and Quayside are located in Wales.", two, 0, ""},
		{"the same sentence in another chunk", popQ, "The population of the town in Kent County at the 2010 census was 2,523.", popApart, 0, ""},
		// The chunk places a town in its country: "in Harbourton,
		// Freedonia" says of another sentence's Harbourton that it is in
		// Freedonia; another chunk, or a list of names, does not.
		// Names listed after "consisting of" are what the question says
		// of its subject, not things it asks the same of.
		{"the band's members are no second subject", "The lead singer of the band consisting of Ann Lee, Bo Chen and Cy Dunn goes by what alias?",
			"The lead singer of the band consisting of Ann Lee, Bo Chen and Cy Dunn goes by The Harbour Ghost.",
			[]string{"The band consists of Ann Lee, Bo Chen and Cy Dunn. She is the lead singer of the band Quay. Lee often uses the alias The Harbour Ghost."},
			1, "The Harbour Ghost"},
		// A quoted title that opens a sentence is a name, which ties the
		// sentences that name it; one sentence between may tie them.
		{"the sentence between ties nothing", "Which band's song was used as the theme at the Pepsi Arena on 8 January 2006?", "Harbour's song was used as the theme at the Pepsi Arena on 8 January 2006.",
			[]string{"\"Tide\" is a song by the rock band Harbour. The band toured in 2005.", "\"Tide\" was released in 2004 on Quay Records.", "The Pepsi Arena hosted a wrestling event on 8 January 2006."},
			0, ""},
		// A sentence that opens on a description and names nothing but
		// the answer goes with the sentence after it in its chunk, as
		// with the one before it.
		{"the sentence after is in another chunk", "Who chaired the ceremony in which the film written by Bo Chen won the award for Best Film?",
			"Ann Lee chaired the ceremony in which the film written by Bo Chen won the award for Best Film.",
			[]string{"The ceremony was chaired by Ann Lee.", "\"Night Shift\" won the award for Best Film. Written by Bo Chen, the film won four awards."},
			0, ""},
		// A sentence that names the premise and the answer by a shorter
		// form of its name ties the answer's full name to the question.
		// "Was X a democrat or a republican?" takes X as given: the
		// alternative the statement names is its claim. "A Democrat from
		// Kent, she …" opens on a description, and its pronoun goes on.
		{"the other alternative", "Was the mayor who opened the Quay Bridge a democrat or a republican?", "The mayor who opened the Quay Bridge was Republican.",
			[]string{"Ann Lee opened the Quay Bridge in 1990. A Democrat from Kent, she served two terms as mayor."}, 0, ""},
		// A negation the restatement copies from the question is the
		// question's premise; the answer's own is still checked.
		{"the answer's own negation", "Who described the quay beetle in 1809?", "Ann Lee did not describe the quay beetle in 1809.",
			[]string{"The quay beetle was described by Ann Lee in 1809."}, 0, "negation conflict"},
		// An acronym no other sentence mentions abbreviates a
		// description: the sentence goes on about its neighbour's subject.
		// A "what retailer" question asks for a retailer: where the
		// answer's sentence names one as such, another name in it is not
		// the answer.
		{"the kind the question asks for", "What retailer is the second-largest in Kent and has a commercial featuring Ann Lee?",
			"Quaymart is the second-largest in Kent and has a commercial featuring Ann Lee.",
			[]string{"Ann Lee has appeared in commercials for companies including Quaymart.", "Quaymart is the second-largest discount store retailer in Kent, behind Harbourco."}, 1, "Quaymart"},
		{"a name of another kind", "What retailer is the second-largest in Kent and has a commercial featuring Ann Lee?",
			"Harbourco is the second-largest in Kent and has a commercial featuring Ann Lee.",
			[]string{"Ann Lee has appeared in commercials for companies including Quaymart.", "Quaymart is the second-largest discount store retailer in Kent, behind Harbourco."}, 0, ""},
		// A bare answer is read so too.
		{"a bare answer of the kind", "What retailer is the second-largest in Kent?", "The answer is Quaymart.",
			[]string{"Quaymart is the second-largest discount store retailer in Kent, behind Harbourco."}, 1, ""},
		{"a bare answer of another kind", "What retailer is the second-largest in Kent?", "The answer is Harbourco.",
			[]string{"Quaymart is the second-largest discount store retailer in Kent, behind Harbourco."}, 0, "context names Quaymart as the kind of thing the question asks for"},
		{"a kind no context names: no check", "Which retailer has a commercial featuring Ann Lee?", "Quaymart has a commercial featuring Ann Lee.",
			[]string{"Ann Lee appeared in commercials for Quaymart and Harbourco."}, 1, "Quaymart"},
		{"an acronym the chunk names elsewhere", "The Quay ferry runs between Dover and Orient but what is the population of Orient?",
			"The Quay ferry runs between Dover and Orient but 743 is the population of Orient.",
			[]string{"The Quay ferry runs between Dover, Kent, and Orient, Essex. The CDP's population was 743 at the 2010 census. The CDP lies north of Harwich."}, 0, ""},
	})
	if got := residual(analyze("Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland."), analyze(q)); got != "Lena Park" {
		t.Errorf("residual = %q, want Lena Park", got)
	}
	// An answer the question names elsewhere is what the statement says
	// once more than the question; a name it only moves adds nothing.
	for _, tt := range []struct{ q, st, want string }{
		{"Who won the Harbour Prize in 1943 and is associated with Bo Chen?", "Bo Chen won the Harbour Prize in 1943.", ""},
		// A name ends at its punctuation: the question's name before the
		// answer's is not kept with it.
		{"Cy Dunn was the founder of the Harbour Trust (HT), which other member died in 2016?",
			"Cy Dunn was the founder of the Harbour Trust (HT), Ann Lee died in 2016.", "Ann Lee"},
	} {
		if got := residual(analyze(tt.st), analyze(tt.q)); got != tt.want {
			t.Errorf("residual(%q) = %q, want %q", tt.st, got, tt.want)
		}
	}
}

// A name is one thing: its words taken from two names of the context
// make a hallucinated name although every word is there.
func TestNameIsOneThing(t *testing.T) {
	ctx := []string{"Rainbow Terrace, now known as Lullwater Estate, is a mansion in Atlanta built in 1916."}
	q := "What is the current name of the Atlanta mansion built in 1916?"
	if ev := Support("Lullwater Estate", q, ctx); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported", ev)
	}
	ev := Support("The current name of the Atlanta mansion built in 1916 is Rainbow Estate.", q, ctx)
	if ev.Verdict != 0 {
		t.Fatalf("Support = %+v, want unsupported: no mansion is called Rainbow Estate", ev)
	}
	ev = Support("Rainbow Estate is a mansion in Atlanta built in 1916.", q, ctx)
	if ev.Verdict != 0 || ev.Detector != DetectorName || !strings.Contains(ev.Reason, `"Rainbow Estate"`) {
		t.Errorf("Support = %+v, want the name detector naming Rainbow Estate", ev)
	}
	// A middle name or an initial between a name's words as the
	// context writes it is the same name.
	if ev := Support("Ann Lee chairs the Quay Trust.", "", []string{"Ann Mary Lee chairs the Quay Trust."}); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported: Ann Lee is Ann Mary Lee", ev)
	}
}

// A capitalised negation inside a sentence is a word of a title: "Listen
// Without Distraction" negates nothing.
func TestNegationInATitle(t *testing.T) {
	ctx := []string{"Listen Without Distraction is a tribute album released in 2010 by the band Quay Road."}
	ev := Support("Quay Road released a tribute album in 2010.", "", ctx)
	if ev.Verdict != 1 || ev.Detector != "" {
		t.Errorf("Support = %+v, want supported with no detector", ev)
	}
	if ev := Support("Quay Road did not release the album Listen Without Distraction.", "", ctx); ev.Detector != DetectorNegation {
		t.Errorf("Support = %+v, want the negation detector: the lowercase not still negates", ev)
	}
}

// "No.", "No —" or "Not yet —" opening an answer replies to a yes/no question; the
// claim after it is its reason, which it does not negate. A "no" inside
// the claim still does.
func TestReplyWordNegatesNothing(t *testing.T) {
	ctx := []string{"Travel expenses are reimbursed for scheduled protocol visits only."}
	q := "Will the sponsor pay for my taxi to an unscheduled visit?"
	for _, c := range []struct {
		statement string
		detector  string
	}{
		{"No. Travel is reimbursed only for scheduled protocol visits.", ""},
		{"No — travel expenses are reimbursed for scheduled protocol visits only.", ""},
		{"Not automatically — travel is reimbursed for scheduled protocol visits only.", ""},
		{"Travel expenses are reimbursed for no protocol visits.", DetectorNegation},
	} {
		if ev := Support(c.statement, q, ctx); ev.Detector != c.detector {
			t.Errorf("%q: %+v, want detector %q", c.statement, ev, c.detector)
		}
	}
}

// analyze's spans are shared by every goroutine (its cache): the
// residual test, which marks its span, must build one of its own. Under
// -race, a write to a shared span fails this test.
func TestResidualSpansAreNotShared(t *testing.T) {
	q := "What was Harbour Rail's revenue in Q3 2021?"
	ctx := []string{"Oct 20, 2021 ... Harbour Rail reported third-quarter revenue of $4.2 million, above estimates."}
	const statement = "Harbour Rail's revenue in Q3 2021 was $4.2 million."
	if ev := Support(statement, q, ctx); !strings.HasPrefix(ev.Reason, "restates the question") {
		t.Fatalf("Support = %+v, want the residual test to decide", ev)
	}
	const n = 8
	done := make(chan int, n)
	for range n {
		go func() {
			done <- Support(statement, q, ctx).Verdict
		}()
	}
	for range n {
		if v := <-done; v != 1 {
			t.Errorf("verdict %d, want 1", v)
		}
	}
}

// A sentence whose subject is a pronoun says what it says of the name
// the sentence before it opens on ("In 2007, he was inducted…" after
// "Tom Reed (born 1954) is…"), through a chain of such sentences, and so
// does one that opens on a description whose noun that sentence has
// ("The mall is…" after "Harbour Plaza Mall is a regional shopping
// mall"); a pronoun after a sentence that opens on another noun, or on
// another name, stands for nothing the judge can tell.
func TestPronounStandsForTheNameBefore(t *testing.T) {
	hallQ := "Who was inducted into the Harbour Hall of Fame, Tom Reed or Ann Lee?"
	hall := []string{"Ann Lee (born 2 December 1963) is a Welsh television presenter and singer. She was the lead singer of the band Quay.",
		"Tom Reed (born October 10, 1954) is an American rock vocalist and songwriter. In 2007, he was inducted into the Harbour Hall of Fame."}
	docQ := "Which documentary is about rock groups, Harbour Days or The Quay Gesture?"
	chain := []string{"Harbour Days is a 1989 film about a fishing town.",
		"The Quay Gesture (Welsh: Ystum) is a 1981 film by two directors. It was shot in one summer. It is a documentary of three rock groups on tour."}
	noun := []string{"The Quay Gesture is a 1981 film. The crew was small. It is a documentary of three rock groups on tour."}
	described := []string{"The Quay Gesture is a 1981 film. The film was shot in one summer. It is a documentary of three rock groups on tour."}
	mallQ := "What shopping mall is the largest in south Kent, Quay Mall or Harbour Plaza Mall?"
	malls := []string{"Quay Mall is 1212515 sqft with over 160 stores.",
		"Harbour Plaza Mall is a regional shopping mall located in Dover. The mall is one of the busiest, and the largest mall in south Kent."}
	other := []string{"Tom Reed is an American vocalist. Ann Lee is a Welsh singer. She was inducted into the Harbour Hall of Fame in 2007."}
	checkSupport(t, []supportCase{
		{"after a phrase of time", hallQ, "Tom Reed was inducted into the Harbour Hall of Fame.", hall, 1, "he was inducted"},
		{"the other candidate", hallQ, "Ann Lee was inducted into the Harbour Hall of Fame.", hall, 0, ""},
		{"no question", "", "Tom Reed was inducted into the Harbour Hall of Fame.", hall, 1, "he was inducted"},
		{"through a chain of pronouns", docQ, "The Quay Gesture is about rock groups.", chain, 1, "It is a documentary"},
		{"the other candidate of the chain", docQ, "Harbour Days is about rock groups.", chain, 0, ""},
		{"after a common noun", "", "The Quay Gesture is a documentary of three rock groups on tour.", noun, 0, ""},
		{"after a description of the name", docQ, "The Quay Gesture is a documentary of three rock groups on tour.", described, 1, ""},
		{"a description stands for the name", mallQ, "Harbour Plaza Mall is the largest in south Kent.", malls, 1, "The mall is one of the busiest"},
		{"a description after an opening phrase", "", "Harbour Days is set in Dover.",
			[]string{"Harbour Days is an English drama series which airs on Quay TV. Set in Dover, the series is filmed in Leeds."}, 1, "Set in Dover, the series"},
		{"a description of another thing", "", "Harbour Days is set in Dover.",
			[]string{"Harbour Days is an English drama film which airs on Quay TV. Set in Dover, the series is filmed in Leeds."}, 0, ""},
		{"the name before a parenthesis cut at a semicolon", "Which of the following is best known for championing the right to die: Ann Lee or Jack Reed?",
			"Jacob \"Jack\" Reed is best known for championing the right to die.",
			[]string{"Ann Lee (born June 17, 1966) is a retired actress.", "Jacob \"Jack\" Reed ( ; May 26, 1928 – June 3, 2011) was an American pathologist. He is best known for championing the right to die; he assisted many."},
			1, "He is best known"},
		{"after another name", "", "Tom Reed was inducted into the Harbour Hall of Fame in 2007.", other, 0, ""},
		{"the name before it", "", "Ann Lee was inducted into the Harbour Hall of Fame in 2007.", other, 1, ""},
	})
}

// A restatement's answer is tied to the rest of it by a word ("distributed
// by A", "born in A"). Found only in a sentence that says something else
// of it ("produced by A"), while a sentence of the chain gives that word
// with another name, it stands there in another role; a sentence that
// gives the word with the name of a step to the answer ("a scientist at
// Quay University" for "works as a scientist in Kent") is no other answer.
func TestRestatedAnswerInAnotherRole(t *testing.T) {
	filmQ := "Which company distributed the film that won the Audience Award at the 2018 Harbour Festival?"
	film := []string{"The Audience Award of the 2018 Harbour Festival went to The Quiet Ferry, a documentary by Ann Lee.",
		"The Quiet Ferry is a 2018 documentary directed by Ann Lee and produced by the company Morrow Films. After its festival run, the film was distributed in cinemas by Halcyon Pictures."}
	bornQ := "Where was the novelist Tom Reed born?"
	born := []string{"Tom Reed (1934-2002) was a Welsh novelist. He spent most of his adult life in Cardiff and later in Bristol. Reed was born in Harbourton, the son of a miner."}
	stepQ := "What county does Bo Chen work in as a scientist?"
	step := []string{"Bo Chen is a materials scientist at Quay University.", "Quay University is a public university in Kent County."}
	museumQ := "Who is the current director of the museum that bought The Salt Pans in 1998?"
	museum := []string{"The Salt Pans is an oil painting by Bo Chen. It stayed with the Halbert family until 1998, when it was bought by the Quay Museum of Art.",
		"The Quay Museum of Art is a public museum in Dover. Since 2017 it has been led by the director Ines Lee, who was chief curator before. Her predecessor, Alan Reed, oversaw the 2004 expansion."}
	genusQ := "When was the genus Quaya first formally described?"
	genus := []string{"Quaya is a genus of herbs in the family Gesneriaceae, endemic to Kent. The first specimens were gathered by the collector Ann Lee in 1838. They were only formally described as a new genus in 1852 by the botanist Bo Chen."}
	checkSupport(t, []supportCase{
		{"the distributor", filmQ, "The film that won the Audience Award at the 2018 Harbour Festival was distributed by Halcyon Pictures.", film, 1, "Halcyon Pictures"},
		{"the producer given as the distributor", filmQ, "The film that won the Audience Award at the 2018 Harbour Festival was distributed by Morrow Films.", film, 0, ""},
		{"the birthplace", bornQ, "The novelist Tom Reed was born in Harbourton.", born, 1, ""},
		{"where he lived given as where he was born", bornQ, "The novelist Tom Reed was born in Cardiff.", born, 0, ""},
		{"a step to the answer is no other answer", stepQ, "Bo Chen works as a scientist in Kent County.", step, 1, "Kent County"},
		// What the relation word ties may come after a short phrase.
		{"the year of another event", genusQ, "The genus Quaya was first formally described in 1838.", genus, 0, ""},
		{"the year the phrase ties", genusQ, "The genus Quaya was first formally described in 1852.", genus, 1, "1852"},
		// A copula ties its answer by its subject's noun ("director").
		{"the predecessor given as the director", museumQ, "The current director of the museum that bought The Salt Pans in 1998 is Alan Reed.", museum, 0, ""},
		{"the director", museumQ, "The current director of the museum that bought The Salt Pans in 1998 is Ines Lee.", museum, 1, "Ines Lee"},
	})
}

// supportCase is one row of a table of Support tests: the statement's
// verdict against ctx, and a part of its reason when reason is set.
type supportCase struct {
	name, q, statement string
	ctx                []string
	want               int
	reason             string
}

func checkSupport(t *testing.T, cases []supportCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ev := Support(tt.statement, tt.q, tt.ctx)
			if ev.Verdict != tt.want {
				t.Fatalf("Support(%q) = %+v, want verdict %d", tt.statement, ev, tt.want)
			}
			if tt.reason != "" && !strings.Contains(ev.Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", ev.Reason, tt.reason)
			}
		})
	}
}

// TestRestatedAnswerEchoesTheQuestion: a sentence that gives a restated
// answer and repeats RestateEcho words of the question is about what the
// question asks, though no name links it to the question's own name (the
// club is named by its town alone); one that repeats fewer is not.
func TestRestatedAnswerEchoesTheQuestion(t *testing.T) {
	q := "Tom Vale was a rugby player for a club that plays its home matches where?"
	ctx := []string{"Tom Vale (1901-1960) was an English rugby league player who played at club level for Harbury and Dunmore.",
		"Harbury Rovers R.L.F.C. is a rugby league club based in Harbury, Kent. The club plays its home matches at the Quay Stadium. Its training ground is Marsh Park."}
	checkSupport(t, []supportCase{
		{"the ground the sentence gives", q, "Tom Vale was a rugby player for a club that plays its home matches at Quay Stadium.", ctx, 1, "Quay Stadium"},
		{"a ground no sentence gives", q, "Tom Vale was a rugby player for a club that plays its home matches at Anfield.", ctx, 0, ""},
		{"a ground of a sentence that echoes too little", q, "Tom Vale was a rugby player for a club that plays its home matches at Marsh Park.", ctx, 0, ""},
	})
}

// TestResidualLeavesTheQuestionsWord: a word the question writes as it is,
// ending a run of capitalised words, is not part of the answer ("Kent US"
// of "in Kent US state" for "in which US state?").
func TestResidualLeavesTheQuestionsWord(t *testing.T) {
	q := "The 33rd Test Squadron was based at Quay Air Base, a former base in which US state?"
	if got := residual(analyze("The 33rd Test Squadron was based at Quay Air Base, a former base in Kent US state."), analyze(q)); got != "Kent" {
		t.Errorf("residual = %q, want Kent", got)
	}
}

// TestResidualWordOnlyInAName: a restated answer's lowercase word that its
// sentence writes only as a word of a name ("brother" of "Band of
// Brothers") is not found there; a field's key, capitalised by its place,
// is no name.
func TestResidualWordOnlyInAName(t *testing.T) {
	q := "What is the connection between Tom Reed and Ann Lee?"
	ctx := []string{"Lauded for his work on the stage, he came to the screen in the series \"Harbour of Brothers\" playing 1st Lt Ann Lee. Lee was portrayed in the series \"Harbour of Brothers\" by Tom Reed."}
	record := []string{"Product name: Quay thinner T-40\nShort-term exposure limit (15-min): 100 ppm"}
	checkSupport(t, []supportCase{
		{"a word of the title", q, "Tom Reed played Ann Lee's brother.", ctx, 0, ""},
		{"a key capitalised by its place", "What's the 15-minute exposure limit for thinner T-40?", "Thinner T-40 has a short-term exposure limit of 100 ppm over 15 minutes.", record, 1, ""},
	})
}

// TestChineseAnswerInAnotherRole: a Chinese restatement's answer found in a
// sentence without the words that tie it to the statement, while another
// sentence says those words of another, stands there in another role; the
// chunk's topic, which a sentence names by a short form, ties nothing, nor
// does a sentence about another instance (another year) of what the
// question names.
func TestChineseAnswerInAnotherRole(t *testing.T) {
	museumQ := "河岸纺织博物馆的首任馆长是谁？"
	museum := []string{"河岸纺织博物馆利用旧纺织厂厂房改建，2003年开馆。首任馆长由曾任厂里工程师的严立新出任。现任馆长为文物学者宋雨桐，她于2019年上任。"}
	shopQ := "1962年接手松鹤装裱坊的人出生在哪里？"
	shop := []string{"松鹤装裱坊是位于临江县的一家手工装裱作坊。1962年，作坊由创办人的学徒方晓岚接手经营。方晓岚出生在海边小镇石湾。"}
	clinicQ := "江川市第二医院的眼科门诊在哪里？"
	clinic := []string{"该门诊位于门诊楼南区二楼，紧邻门诊药房。", "耳鼻喉科门诊与多个专科共用候诊区，位于门诊楼北区一楼。"}
	cupQ := "2019年龙舟邀请赛在哪里举办？"
	cup := []string{"在南溪镇举行的2019年龙舟邀请赛吸引了二十支队伍。", "首届龙舟邀请赛于2005年在北湖公园举办。"}
	checkSupport(t, []supportCase{
		{"the first director", museumQ, "河岸纺织博物馆的首任馆长是严立新。", museum, 1, ""},
		{"the present director given as the first", museumQ, "河岸纺织博物馆的首任馆长是宋雨桐。", museum, 0, "首任馆长由曾任厂里工程师的严立新出任"},
		{"the topic named by a short form", shopQ, "1962年接手松鹤装裱坊的是学徒方晓岚。", shop, 1, ""},
		{"a chunk cut from the question's name", clinicQ, "江川市第二医院眼科门诊在门诊楼南区二楼。", clinic, 1, ""},
		{"another instance says the words", cupQ, "2019年龙舟邀请赛在南溪镇举办。", cup, 1, ""},
	})
}
