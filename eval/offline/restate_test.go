package offline

import (
	"strings"
	"testing"
)

// A statement that restates a multi-hop question around its answer adds
// only the answer to the question; RAGAS's statement step would split it
// into the question's premise and the claim. The claim is checked as a
// short answer would be, in a sentence tied to the question's names.
func TestRestatementIsTheQuestionAroundItsAnswer(t *testing.T) {
	q := "Who directed the 2004 film that was shot at the Harbor Diner in Portland?"
	linked := []string{"The Harbor Diner is a restaurant in Portland. It appeared in the 2004 film Night Shift.",
		"Night Shift is a 2004 comedy film directed by Lena Park and starring Tom Reed."}
	unlinked := []string{"The Harbor Diner is a restaurant in Portland. It opened in 1950.",
		"Night Shift is a 2004 comedy film directed by Lena Park."}
	described := []string{"The Harbor Diner is a restaurant in Portland. The restaurant has appeared in the 2004 film Night Shift.",
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
	pop := []string{"Pine Hill is a town in Kent County. The population was 2,523 at the 2010 census."}
	popApart := []string{"Pine Hill is a town in Kent County.", "The population was 2,523 at the 2010 census."}
	albumQ := "Who released their second album with a band from Dover, Kent?"
	album := []string{"Harbour Songs 2 is the second album in a series of live releases by Ann Lee. Self-released in 2004, it features appearances by The Quay and Bo Chen.",
		"The Quay is an English rock band formed in Dover, Kent in 1998."}
	albumApart := []string{"Harbour Songs 2 is the second album in a series of live releases by Ann Lee. Self-released in 2004, it features appearances by Bo Chen.",
		"The Quay is an English rock band formed in Dover, Kent in 1998."}
	checkSupport(t, []supportCase{
		{"tied by a description that goes on about the band", "What band originally from Leeds and currently from Hull released their first album in 2000?",
			"Harbour Lights is the band originally from Leeds and currently from Hull that released their first album in 2000.",
			[]string{"Pretty Days is the first album released by Harbour Lights in 2000.", "Harbour Lights (HL) is an English pop band. The band was formed in Leeds in 1998, and currently resides in Hull."},
			1, `tied to the question by "The band was formed in Leeds`},
		{"tied through a sentence that goes on about another", "Which city is the English rock band, that released their album on March 19, 2012, from?",
			"The English rock band, that released their album on March 19, 2012, is from Leeds.",
			[]string{"Quay Days is the fourth studio album by English rock band The Harbours. The album was released March 19, 2012, on Tide Records.", "The Harbours are an English indie rock band from Leeds, formed in 1996."},
			1, `tied to the question by "The album was released March 19, 2012`},
		{"tied through the sentence that goes on about the album", albumQ, "Ann Lee released their second album with a band from Dover, Kent.", album, 1, "Harbour Songs 2 is the second album"},
		{"the album's sentences name no band of Dover", albumQ, "Ann Lee released their second album with a band from Dover, Kent.", albumApart, 0, ""},
		{"tied by the film both sentences name", q, "Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland.", linked, 1, `tied to the question by "It appeared in the 2004 film Night Shift."`},
		{"an answer the contexts do not give", q, "Mara Quill directed the 2004 film that was shot at the Harbor Diner in Portland.", linked, 0, ""},
		{"tied by a sentence that goes on about the diner", q, "Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland.", described, 1, `tied to the question by "The restaurant has appeared`},
		{"nothing ties the film to the diner", q, "Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland.", unlinked, 0, ""},
		{"a premise changed by the statement", q, "Lena Park directed the 2009 film that was shot at the Harbor Diner in Portland.", linked, 0, ""},
		{"a sentence that goes on about its chunk's subject", popQ, "The population of the town in Kent County at the 2010 census was 2,523.", pop, 1, "restates the question around \"2,523\""},
		{"an added name that opens the residual", arenaQ, "In 2006, the Quay Arena used a song by Slipknot as the official theme for the Harbour Cup event.", arena, 0, ""},
		{"a name listed beside the answer is no link", stationQ, "Harbour Lights is from Columbus, Ohio.", station, 0, ""},
		{"the listed name's own answer", stationQ, "Twenty Pilots is from Columbus, Ohio.", station, 1, ""},
		{"the question's first name is a premise too", twoQ, "Harbourton and Quayside are located in Wales.", two, 0, ""},
		{"the same sentence in another chunk", popQ, "The population of the town in Kent County at the 2010 census was 2,523.", popApart, 0, ""},
		// The chunk places a town in its country: "in Harbourton,
		// Freedonia" says of another sentence's Harbourton that it is in
		// Freedonia; another chunk, or a list of names, does not.
		{"a place the chunk puts in its country", "Quay Park and the Tide Lyceum, are located in which country?", "Quay Park and the Tide Lyceum, are located in Freedonia.",
			[]string{"Quay Park is a historical park in the old district of Harbourton, Freedonia. The Tide Lyceum is one of the oldest schools in Harbourton."},
			1, `tied to the question by "The Tide Lyceum is one of the oldest schools in Harbourton."`},
		{"placed in another chunk", "Quay Park and the Tide Lyceum, are located in which country?", "Quay Park and the Tide Lyceum, are located in Freedonia.",
			[]string{"Quay Park is a historical park in the old district of Harbourton, Freedonia.", "The Tide Lyceum is one of the oldest schools in Harbourton."}, 0, ""},
		{"a list of names is no place", "Quay Park and the Tide Lyceum, are located in which country?", "Quay Park and the Tide Lyceum, are located in Freedonia.",
			[]string{"Quay Park has gates in Harbourton, Freedonia and Quayside. The Tide Lyceum is one of the oldest schools in Harbourton."}, 0, ""},
		// Names listed after "consisting of" are what the question says
		// of its subject, not things it asks the same of.
		{"the band's members are no second subject", "The lead singer of the band consisting of Ann Lee, Bo Chen and Cy Dunn goes by what alias?",
			"The lead singer of the band consisting of Ann Lee, Bo Chen and Cy Dunn goes by The Harbour Ghost.",
			[]string{"The band consists of Ann Lee, Bo Chen and Cy Dunn. She is the lead singer of the band Quay. Lee often uses the alias The Harbour Ghost."},
			1, "The Harbour Ghost"},
		// A quoted title that opens a sentence is a name, which ties the
		// sentences that name it; one sentence between may tie them.
		{"tied by a quoted title", "Which band's song was the theme of the Quay Cup in 2006?", "Harbour's song was the theme of the Quay Cup in 2006.",
			[]string{"\"Tide\" is a song by the rock band Harbour. The band toured in 2005.", "\"Tide\" was the official theme of the Quay Cup in 2006."},
			1, `to the question by "\"Tide\" was the official theme`},
		{"tied through one sentence between", "Which band's song was used as the theme at the Pepsi Arena on 8 January 2006?", "Harbour's song was used as the theme at the Pepsi Arena on 8 January 2006.",
			[]string{"\"Tide\" is a song by the rock band Harbour. The band toured in 2005.", "\"Tide\" was used as the official theme for the Quay Revolution.", "The Quay Revolution took place on 8 January 2006 at the Pepsi Arena."},
			1, `tied to the question by "The Quay Revolution took place`},
		{"the sentence between ties nothing", "Which band's song was used as the theme at the Pepsi Arena on 8 January 2006?", "Harbour's song was used as the theme at the Pepsi Arena on 8 January 2006.",
			[]string{"\"Tide\" is a song by the rock band Harbour. The band toured in 2005.", "\"Tide\" was released in 2004 on Quay Records.", "The Pepsi Arena hosted a wrestling event on 8 January 2006."},
			0, ""},
		// A sentence that opens on a description and names nothing but
		// the answer goes with the sentence after it in its chunk, as
		// with the one before it.
		{"tied by the sentence after", "Who chaired the ceremony in which the film written by Bo Chen won the award for Best Film?",
			"Ann Lee chaired the ceremony in which the film written by Bo Chen won the award for Best Film.",
			[]string{"The ceremony was chaired by Ann Lee. \"Night Shift\" won the award for Best Film. Written by Bo Chen, the film won four awards."},
			1, `tied to the question by "\"Night Shift\" won the award for Best Film."`},
		{"the sentence after is in another chunk", "Who chaired the ceremony in which the film written by Bo Chen won the award for Best Film?",
			"Ann Lee chaired the ceremony in which the film written by Bo Chen won the award for Best Film.",
			[]string{"The ceremony was chaired by Ann Lee.", "\"Night Shift\" won the award for Best Film. Written by Bo Chen, the film won four awards."},
			0, ""},
		// A sentence that names the premise and the answer by a shorter
		// form of its name ties the answer's full name to the question.
		{"tied by the answer's shorter name", "Bo Chen was played by which English actor?", "Bo Chen was played by Ann Marie Lee.",
			[]string{"The character, played by actor Ann Lee, follows the exploits of Bo Chen.", "Ann Marie Lee (born 1983) is an English actor."},
			1, `tied to the question by "The character, played by actor Ann Lee`},
		// "Was X a democrat or a republican?" takes X as given: the
		// alternative the statement names is its claim. "A Democrat from
		// Kent, she …" opens on a description, and its pronoun goes on.
		{"the alternative a restatement names", "Was the mayor who opened the Quay Bridge a democrat or a republican?", "The mayor who opened the Quay Bridge was Democrat.",
			[]string{"Ann Lee opened the Quay Bridge in 1990. A Democrat from Kent, she served two terms as mayor."},
			1, `restates the question around "Democrat"`},
		{"the other alternative", "Was the mayor who opened the Quay Bridge a democrat or a republican?", "The mayor who opened the Quay Bridge was Republican.",
			[]string{"Ann Lee opened the Quay Bridge in 1990. A Democrat from Kent, she served two terms as mayor."}, 0, ""},
		// A negation the restatement copies from the question is the
		// question's premise; the answer's own is still checked.
		{"the question's negation is its premise", "The town with the smallest harbour in Kent is one of few places where the quay beetle cannot be found, that was first described in 1809 by whom?",
			"The town with the smallest harbour in Kent is one of few places where the quay beetle cannot be found, that was first described in 1809 by Ann Lee.",
			[]string{"The quay beetle was described by Ann Lee in 1809 and can be found everywhere in Kent except Dover."}, 1, `restates the question around "Ann Lee"`},
		{"the answer's own negation", "Who described the quay beetle in 1809?", "Ann Lee did not describe the quay beetle in 1809.",
			[]string{"The quay beetle was described by Ann Lee in 1809."}, 0, "negation conflict"},
		// An acronym no other sentence mentions abbreviates a
		// description: the sentence goes on about its neighbour's subject.
		{"an acronym the chunk never spells out", "The Quay ferry runs between Dover and Orient but what is the population of Orient?",
			"The Quay ferry runs between Dover and Orient but 743 is the population of Orient.",
			[]string{"The Quay ferry runs between Dover, Kent, and Orient, Essex. The CDP's population was 743 at the 2010 census."}, 1, `restates the question around "743"`},
		{"an acronym the chunk names elsewhere", "The Quay ferry runs between Dover and Orient but what is the population of Orient?",
			"The Quay ferry runs between Dover and Orient but 743 is the population of Orient.",
			[]string{"The Quay ferry runs between Dover, Kent, and Orient, Essex. The CDP's population was 743 at the 2010 census. The CDP lies north of Harwich."}, 0, ""},
		{"two subjects are each asked", "Which industry do Ann Lee and Bo Chen belong to?", "Ann Lee and Bo Chen belong to shipbuilding.",
			[]string{"Ann Lee is a Welsh engineer who works in shipbuilding.", "Bo Chen is a Welsh painter."}, 0, ""},
	})
	if got := residual(analyze("Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland."), analyze(q)); got != "Lena Park" {
		t.Errorf("residual = %q, want Lena Park", got)
	}
	// An answer the question names elsewhere is what the statement says
	// once more than the question; a name it only moves adds nothing.
	for _, tt := range []struct{ q, st, want string }{
		{"The Quay Society was set up in Kent, England, and is now active in all of which country?",
			"The Quay Society was set up in Kent, England, and is now active in all of England.", "England"},
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
	// As many of a negation are the question's as the question has: a
	// second "not" is the answer's own.
	nq := analyze("Which town where the beetle is not found was described by Ann Lee?")
	ns := withoutPremiseNegations(analyze("Dover is the town where the beetle is not found that was not described by Ann Lee."), nq)
	left := 0
	for _, c := range ns.clauses {
		left += len(c.negs)
	}
	if left != 1 {
		t.Errorf("withoutPremiseNegations left %d negations, want the answer's own one", left)
	}
	// Superheaven and Oceansize, are bands of which shared genre? The
	// interrogative phrase is what the answer replaces: a restatement need
	// not repeat it.
	gq := "The Harbour Band and the Quay Players are bands of which shared genre?"
	if !restates(analyze("The Harbour Band and the Quay Players are bands of rock."), analyze(gq)) {
		t.Error("a restatement that puts its answer in place of \"which shared genre\" is not one")
	}
	// The phrase is a coordination whole: "which Welsh writer, critic and
	// poet" is replaced by the name, none of its nouns repeated.
	// "other" opens the phrase: "what other real life boxer" is asked.
	if oq := "What other real life boxer did Ann Lee act with in Night Shift?"; !restates(analyze("Ann Lee did act with Bo Chen in Night Shift."), analyze(oq)) {
		t.Error("a restatement that puts its answer in place of \"what other real life boxer\" is not one")
	}
	// Before the auxiliary, the answer stands for the whole noun phrase.
	if wq := "Which tennis player from the Quay club was born in Kent?"; !restates(analyze("Ann Lee was born in Kent."), analyze(wq)) {
		t.Error("a restatement of a wh-question without its noun phrase is not one")
	}
	if dq := "Which close friend of Bo Chen, Cy Dunn, and Di Eng, did a scion of the Quay family attempt to rescue?"; !restates(analyze("A scion of the Quay family attempt to rescue Ann Lee."), analyze(dq)) {
		t.Error("a restatement of a do-question without its noun phrase is not one")
	}
	cq := "Night Shift is a novella by which Welsh writer, critic and poet?"
	if !restates(analyze("Night Shift is a novella by Ann Lee."), analyze(cq)) {
		t.Error("a restatement that puts its answer in place of \"which Welsh writer, critic and poet\" is not one")
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
	if got := nameRuns("**Fare:** 480 Taka [Source: routes.pdf] and Band of Brothers play with the Harbour Band American musicians."); strings.Join(got, "|") != "Band of Brothers|Harbour Band" {
		t.Errorf("nameRuns = %q, want Band of Brothers and Harbour Band (markup, the article and the demonym are not the name)", got)
	}
}

// An answer that opens with yes or no and then restates the question says
// no more than the yes or no: its statements are the proposition's, one
// per thing. "Yes, both are tequila-based" was one statement, supported
// by the one cocktail's sentence.
func TestRestatedYesOrNo(t *testing.T) {
	q := "Are the Harbour Sour and the Quay Fizz both Cuban cocktails?"
	ctx := []string{"The Harbour Sour is a Cuban cocktail of rum and lime. The Quay Fizz is a Mexican cocktail of tequila."}
	for _, tt := range []struct {
		answer string
		want   []string
	}{
		{"Yes, both are Cuban cocktails.", []string{"Yes: the Harbour Sour is Cuban cocktails", "Yes: the Quay Fizz is Cuban cocktails"}},
		{"Yes, the Harbour Sour and the Quay Fizz are both Cuban cocktails.", []string{"Yes: the Harbour Sour is Cuban cocktails", "Yes: the Quay Fizz is Cuban cocktails"}},
		{"No, the Quay Fizz is Mexican.", []string{"No, the Quay Fizz is Mexican."}}, // it says more
		{"Yes. The Harbour Sour was invented in 1920.", []string{"Yes. The Harbour Sour was invented in 1920."}},
	} {
		if got := StatementsFor(q, tt.answer); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("StatementsFor(%q) = %q, want %q", tt.answer, got, tt.want)
		}
	}
	if s, _ := Faithfulness(q, "Yes, both are Cuban cocktails.", ctx); s != 0.5 {
		t.Errorf("Faithfulness = %v, want 0.5: the Quay Fizz is Mexican", s)
	}
}

// The names of a question that offers alternatives are candidates, not
// premises: the answer that names one claims it, and the sentence that
// supports it must name it.
func TestAlternativesAreCandidates(t *testing.T) {
	q := "Which university is located in Chestnut Hill, Harbour College or Quay University?"
	ctx := []string{"Harbour College is a private university located in Chestnut Hill, Massachusetts.",
		"Quay University is a public university in Stanford, California."}
	if ev := Support("Harbour College is located in Chestnut Hill.", q, ctx); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported", ev)
	}
	if ev := Support("Quay University is located in Chestnut Hill.", q, ctx); ev.Verdict != 0 {
		t.Errorf("Support = %+v, want unsupported: Quay University is in Stanford", ev)
	}
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{q, true},
		{"Between Harbour Airport and Quay Airport, which one is in Tennessee?", true},
		{"Which of the following founded the Harbour Trust: Ann Lee or Bo Chen?", true},
		{"Who founded the Harbour Trust and the Quay Fund?", false},
		{"Which Harbour Trust chair was born in 1950?", false},
		// The "or" of a premise, before the question's interrogative.
		{"The Harbour Trust or Quay Fund was set up by the city council and is based in which town?", false},
		{"Was the mayor who opened the Quay Bridge a democrat or a republican?", true},
		{"Ann Lee or Bo Chen, who was born first?", true},
		// "which of" a set the question does not list.
		{"Ann Lee is a painter, which of her works was shown in 2014?", false},
		{"Which of these two founded the Harbour Trust, Ann Lee or Bo Chen?", true},
		{"Which of the following founded the Harbour Trust: Ann Lee, Bo Chen?", true},
		{"Which of them founded the Harbour Trust?", true},
	} {
		if got := offersAlternatives(tt.q); got != tt.want {
			t.Errorf("offersAlternatives(%q) = %v, want %v", tt.q, got, tt.want)
		}
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

// analyze's spans are shared by every goroutine (its cache): the
// residual test, which marks its span, must build one of its own. Under
// -race, a write to a shared span fails this test.
func TestResidualSpansAreNotShared(t *testing.T) {
	q := "Who directed the 2004 film that was shot at the Harbor Diner in Portland?"
	ctx := []string{"The Harbor Diner is a restaurant in Portland. It appeared in the 2004 film Night Shift.",
		"Night Shift is a 2004 comedy film directed by Lena Park and starring Tom Reed."}
	const n = 8
	done := make(chan int, n)
	for range n {
		go func() {
			done <- Support("Lena Park directed the 2004 film that was shot at the Harbor Diner in Portland.", q, ctx).Verdict
		}()
	}
	for range n {
		if v := <-done; v != 1 {
			t.Errorf("verdict %d, want 1", v)
		}
	}
}

// A comparison word that is part of a name compares nothing: "First" of
// "First for Women" does not support "was started first".
func TestComparisonWordInAName(t *testing.T) {
	q := "Which magazine was started first, Harbour Monthly or First for Women?"
	ctx := []string{"Harbour Monthly was a literary magazine published in Leeds. First for Women is a magazine published by Quay Media."}
	if ev := Support("First for Women was started first.", q, ctx); ev.Verdict != 0 {
		t.Errorf("Support = %+v, want unsupported: no sentence says which was first", ev)
	}
	// A field's key is not a name: "First departure: 06:15" says when the
	// first one leaves.
	if ev := Support("The first departure is at 06:15.", "", []string{"Route: Harbour to Quay; First departure: 06:15; Fare: 40 Taka"}); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported by the field", ev)
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
		{"after a common noun", docQ, "The Quay Gesture is a documentary of three rock groups on tour.", noun, 0, ""},
		{"after a description of the name", docQ, "The Quay Gesture is a documentary of three rock groups on tour.", described, 1, ""},
		{"a description stands for the name", mallQ, "Harbour Plaza Mall is the largest in south Kent.", malls, 1, "The mall is one of the busiest"},
		{"the other candidate of the description", mallQ, "Quay Mall is the largest in south Kent.", malls, 0, ""},
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
	for text, want := range map[string]bool{
		"He was born in Leeds.":                           true,
		"In 2007, he was inducted.":                       true,
		"Self-released in 2004, it features Bo Chen.":     true,
		"After the war ended in Europe, she moved.":       true,
		"His wife was a singer.":                          false,
		"Harbour Days is a film.":                         false,
		"In the summer of that long year, he moved away.": false, // too long an opening to be sure
	} {
		if got := subjectPronoun(text); got != want {
			t.Errorf("subjectPronoun(%q) = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]string{
		"The Quay Gesture (Welsh: Ystum) is a 1981 film.": "Quay Gesture",
		"Tom Reed (born 1954) is a vocalist.":             "Tom Reed",
		"Reed became a commentator.":                      "Reed",
		"Bank of Kent, the lender, grew.":                 "Bank of Kent",
		"The film was shot in Kent.":                      "",
		"In 2007, he was inducted.":                       "",
	} {
		if got := openingName(text); got != want {
			t.Errorf("openingName(%q) = %q, want %q", text, got, want)
		}
	}
}

// A restatement's premise that no context mentions at all ("the 1998
// Quay Harbour Grand Cup" of a context that only says "the race") ties the answer's
// sentence to nothing and contradicts nothing: the answer is checked
// where the contexts give it. A premise the contexts do mention must still
// be tied to it.
func TestAPremiseNoContextMentionsIsGiven(t *testing.T) {
	q := "The 1998 Quay Harbour Grand Cup was won by a driver who retired in what year?"
	absent := []string{"The 20-lap race was the fifth round of the 1998 season and was won by Tom Reed. After retiring from racing in 2003, Reed became a commentator."}
	elsewhere := []string{"The Quay Harbour Grand Cup is a motor race held in Kent every May.",
		"The 20-lap race was the fifth round of the 1998 season and was won by Tom Reed. After retiring from racing in 2003, Reed became a commentator."}
	for _, tt := range []struct {
		name, statement string
		ctx             []string
		want            int
	}{
		{"the premise is in no context", "The 1998 Quay Harbour Grand Cup was won by a driver who retired in 2003.", absent, 1},
		{"an answer the contexts do not give", "The 1998 Quay Harbour Grand Cup was won by a driver who retired in 2005.", absent, 0},
		{"the premise is in a context that does not tie it", "The 1998 Quay Harbour Grand Cup was won by a driver who retired in 2003.", elsewhere, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := Support(tt.statement, q, tt.ctx)
			if ev.Verdict != tt.want {
				t.Fatalf("Support(%q) = %+v, want verdict %d", tt.statement, ev, tt.want)
			}
			if tt.want == 1 && !strings.Contains(ev.Reason, `restates the question around "2003"`) {
				t.Errorf("reason %q does not say the answer is what the restatement adds", ev.Reason)
			}
		})
	}
}

// A restatement is not cut at a joint it copies from the question: the
// half without the answer would be the question's premise checked as a
// claim. A joint of the answer's own still cuts it.
func TestARestatementIsNotCutAtTheQuestionsJoint(t *testing.T) {
	q := "The 2001 season was the Harbour club's 27th season in the league, and 22nd season in Kent, after the retirement of Tom Reed, the club signed Ann Lee and who?"
	for _, tt := range []struct {
		q, answer string
		want      int
	}{
		{q, "The 2001 season was the Harbour club's 27th season in the league, and 22nd season in Kent, after the retirement of Tom Reed, the club signed Ann Lee and Bo Chen.", 1},
		{"Who did the Harbour club sign in 2001?", "The Harbour club signed Ann Lee in 2001, and the club won the league in 2002 with her.", 2},
		{"", "The Harbour club signed Ann Lee in 2001, and the club won the league in 2002 with her.", 2},
	} {
		if got := StatementsFor(tt.q, tt.answer); len(got) != tt.want {
			t.Errorf("StatementsFor(%q, %q) = %q, want %d statements", tt.q, tt.answer, got, tt.want)
		}
	}
	ctx := []string{"After the retirement of Tom Reed, the club signed Ann Lee and Bo Chen, and acquired Cy Dee."}
	if ev := Support(StatementsFor(q, "The 2001 season was the Harbour club's 27th season in the league, and 22nd season in Kent, after the retirement of Tom Reed, the club signed Ann Lee and Bo Chen.")[0], q, ctx); ev.Verdict != 1 {
		t.Errorf("the whole restatement is not supported: %+v", ev)
	}
}

// A demonym names its country for the name detector: "a British film
// director" is from Great Britain; and for a short answer, "an
// Australian businessman" is from Australia. A demonym that labels a
// language ("Italian: Società") names none, and another country's is no
// support.
func TestDemonymNamesItsCountry(t *testing.T) {
	q := "What film director is from Great Britain, Bo Chen or Alex Reed?"
	ctx := []string{"Alexander \"Alex\" Reed (born 15 December 1954 in Bebington, Cheshire) is a British film director and screenwriter.",
		"Bo Chen (born 1932) is a Czech film director and screenwriter."}
	bothQ := "From what country are both Ann Lee and Quay University?"
	both := []string{"Ann Lionel Lee AC (born 20 April 1938, Ilford, England) is an Australian businessman who has served on many boards.",
		"Quay University is a public research university based in Sydney, Australia, in the suburb of Quay Park."}
	society := []string{"The Quay Society (Italian: \"Società del Molo\") is a criminal confederation, started in Melbourne."}
	checkSupport(t, []supportCase{
		{"the country of the demonym", q, "Alexander \"Alex\" Reed is from Great Britain.", ctx, 1, ""},
		{"another country's demonym", q, "Bo Chen is from Great Britain.", ctx, 0, ""},
		{"a language label", "", "The Quay Society is a criminal confederation started in Italy.", society, 0, ""},
		{"a short answer's country by a demonym", bothQ, "Both Ann Lee and Quay University are from Australia.", both, 1, ""},
		{"a country only one of them gives", bothQ, "Both Ann Lee and Quay University are from England.", both, 0, ""},
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

// A statement that repeats, word for word, a sentence the question gives
// as its premise claims nothing by it; a premise the answer words its own
// way is checked as any statement.
func TestTheQuestionsOwnPremiseIsGiven(t *testing.T) {
	q := `A painter and two-time Harbour Prize winner, was on the fifth episode of "Quay Street". what is her name ?`
	ctx := []string{`Ann Lee and Bo Chen guest-starred in the fifth episode of "Quay Street". She is a painter.`}
	sents := spansOf(ctx)
	for _, tt := range []struct {
		statement string
		want      int
		reason    string
	}{
		{`A painter and two-time Harbour Prize winner, was on the fifth episode of "Quay Street".`, 1, "repeats the question's own premise"},
		{`A painter who won the Harbour Prize twice was on the fifth episode of "Quay Street".`, 0, ""},
		{"Ann Lee is her name.", 1, "Ann Lee"},
	} {
		ev := verdict(tt.statement, q, analyze(q), sents)
		if ev.Verdict != tt.want || !strings.Contains(ev.Reason, tt.reason) {
			t.Errorf("verdict(%q) = %+v, want %d with %q", tt.statement, ev, tt.want, tt.reason)
		}
	}
	// Repeating the question itself is no premise.
	rq := "Ann Lee is a painter. Did she win the Harbour Prize in 2006?"
	if ev := verdict("Did she win the Harbour Prize in 2006.", rq, analyze(rq), sents); ev.Verdict != 0 {
		t.Errorf("a repeated question = %+v, want unsupported", ev)
	}
	if s, ok := Faithfulness(q, `A painter and two-time Harbour Prize winner, was on the fifth episode of "Quay Street". Ann Lee is her name.`, ctx); !ok || s != 1 {
		t.Errorf("Faithfulness = %v, %v; want 1: the answer's one claim is supported", s, ok)
	}
}

// A chunk's "in Place, Region" ends at a mark: "In Harbourton, Ann Lee
// founded a bakery." places no Harbourton in Ann Lee; "in Harbourton,
// Freedonia." does place it in Freedonia, where Harbourton is a name.
func TestAPlaceIsInTheRegionItsChunkGives(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"The park is in the old district of Harbourton, Freedonia. The school is in Harbourton.", "Freedonia"},
		{"In Harbourton, Ann Lee founded a bakery. The school is in Harbourton.", ""},
		{"The park is in Harbourton, Freedonia. The school is reading harbourton books.", ""},
	} {
		sents := contextSpans(tt.text)
		if got := sents[1].countries; got != tt.want {
			t.Errorf("contextSpans(%q)[1].countries = %q, want %q", tt.text, got, tt.want)
		}
	}
}
