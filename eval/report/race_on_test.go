//go:build race

package report

// raceEnabled: the race detector slows writing a page some tenfold; the
// test that writes many samples writes fewer under it.
const raceEnabled = true
