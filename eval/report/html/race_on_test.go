//go:build race

package html

// raceEnabled: the race detector slows writing a page some tenfold; the
// test that writes many samples writes fewer under it.
const raceEnabled = true
