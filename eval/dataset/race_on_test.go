//go:build race

package dataset

// raceEnabled: the race detector slows parsing some tenfold; tests that
// read many records read fewer.
const raceEnabled = true
