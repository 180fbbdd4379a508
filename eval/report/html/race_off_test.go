//go:build !race

package html

const raceEnabled = false
