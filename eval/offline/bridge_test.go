package offline

import "testing"

// TestBridgedSentences: a statement that joins what two sentences say of a
// name it writes, and both write, is supported by the two together; a name
// taken from the other sentence in another role, or linked by a word two
// names share, is not.
func TestBridgedSentences(t *testing.T) {
	film := []string{"Harbour Lights is a 1962 British drama film directed by Owen Tarrant, which stars Celia Marsh, Hugo Penn and Dora Vell. " +
		"Dora Annick Vell (1921–1990) was a British stage and television actress, born in Whitby. She was best known for presenting the BBC gardening series \"Green Fingers\", which ran from 1958 to 1961."}
	q := "Harbour Lights starred which presenter of \"Green Fingers\"?"
	airports := []string{"Kelso Regional Airport is a public airport three miles east of Kelso, Washington. " +
		"Denton Municipal Airport is a city-owned airport in Denton, Texas."}
	presses := []string{"Presses at the Harlow plant:\n- Kestrel 1: B1 sheetfed, Hall A\n- Kestrel 2: B2 sheetfed, Hall C"}
	checkSupport(t, []supportCase{
		{"a fuller name and a title its next sentence gives", q, "Harbour Lights starred Dora Annick Vell of \"Green Fingers\".", film, 1, "both of Vell"},
		{"a place the other sentence gives in another role", "Where was the actress who presented \"Green Fingers\" born?", "Dora Annick Vell, who presented \"Green Fingers\", was born in Harbour Lights.", film, 0, ""},
		{"a country the sentence gives by its demonym", "Where is Dora Vell from?", "Dora Annick Vell was a stage and television actress from Great Britain.", film, 1, ""},
		{"the last names of a list", "Who starred in Harbour Lights?", "Harbour Lights starred Dora Vell.", film, 1, ""},
		{"a word two names share is no link, nor the head of another name", "Where is Kelso Regional Airport?", "Denton Municipal Airport is three miles east of Kelso, Washington.", airports, 0, ""},
		{"a numbered name's other row", "Where is Kestrel 2?", "Kestrel 2 is the B2 sheetfed press in Hall A.", presses, 0, ""},
		{"a numbered name's own row", "Where is Kestrel 2?", "Kestrel 2 is the B2 sheetfed press in Hall C.", presses, 1, ""},
	})
}
