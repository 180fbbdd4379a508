package app

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
)

// DefaultSampleSeed is the seed of --sample without --seed: fixed, so that
// a CI job's sample does not wander and a repeated one is answered from
// the cache.
const DefaultSampleSeed = 1

// ChooseSample returns n of the indexes 0..total-1, ascending, chosen
// uniformly at random by seed; all of them when n >= total. The generator
// is ours (splitmix64) rather than math/rand's, whose streams may change
// between Go versions: a seed recorded in a run must choose the same
// samples on every machine and every build. It holds the n indexes, never
// the samples, so a streamed dataset is sampled from its Scan's count.
func ChooseSample(total, n int, seed uint64) []int {
	if n >= total {
		out := make([]int, total)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if n <= 0 {
		return []int{}
	}
	g := splitmix{state: seed}
	// Floyd's algorithm: n draws for n indexes, whatever total is.
	chosen := make(map[int]struct{}, n)
	out := make([]int, 0, n)
	for j := total - n; j < total; j++ {
		t := int(g.below(uint64(j + 1)))
		if _, dup := chosen[t]; dup {
			t = j
		}
		chosen[t] = struct{}{}
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// splitmix is Vigna's splitmix64: tiny, fast, and fully specified by its
// seed.
type splitmix struct{ state uint64 }

func (g *splitmix) next() uint64 {
	g.state += 0x9e3779b97f4a7c15
	z := g.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below is uniform in [0, bound): values under 2^64 mod bound are drawn
// again, or the low indexes would come up more often.
func (g *splitmix) below(bound uint64) uint64 {
	floor := -bound % bound
	for {
		if x := g.next(); x >= floor {
			return x % bound
		}
	}
}

// chooseSubset applies --sample to the loaded dataset. A resumed run
// evaluates the subset it was started with, rebuilt from its record (the
// dataset is the same: its sha256 was checked).
func (s *Session) chooseSubset(stderr io.Writer) error {
	c := s.Cfg
	if sub := s.run.Subset; c.Resume != "" && sub != nil {
		if c.Sample > 0 {
			return exit.Usagef("--sample with --resume %s: the run keeps the subset it was started with (%s); drop --sample and --seed", s.run.ID, s.run.SamplesText())
		}
		if sub.Of != s.Loaded.Count {
			return exit.Usagef("--resume %s: the run sampled %d of %d samples but %s now has %d; start a new run", s.run.ID, s.run.Samples, sub.Of, c.Dataset, s.Loaded.Count)
		}
		c.Sample, c.Seed = s.run.Samples, sub.Seed
		s.subset = ChooseSample(sub.Of, c.Sample, sub.Seed)
		return nil
	}
	if c.Sample <= 0 {
		return nil
	}
	if c.Resume != "" {
		return exit.Usagef("--sample with --resume %s: that run evaluated every sample, and a resumed run keeps its samples; drop --sample and --seed", s.run.ID)
	}
	if c.Sample >= s.Loaded.Count {
		// Not an error: a CI job's --sample 200 on a dataset that has
		// shrunk to 150 still evaluates everything it can.
		fmt.Fprintf(stderr, "ragscope: --sample %d: %s has %d samples; evaluating all of them (not a sample)\n", c.Sample, c.Dataset, s.Loaded.Count)
		c.Sample = 0
		return nil
	}
	s.subset = ChooseSample(s.Loaded.Count, c.Sample, c.Seed)
	fmt.Fprintf(stderr, "ragscope: --sample %d: evaluating %d of %d samples, chosen with --seed %d (the same seed chooses the same samples; a later full run reuses their judge calls from the cache)\n",
		c.Sample, c.Sample, s.Loaded.Count, c.Seed)
	return nil
}

// recordSubset puts the subset in the run record, whose settings describe
// has made (and in its banner, which the interface shows): a sample's means
// are not the dataset's.
func (s *Session) recordSubset() {
	if s.subset == nil {
		return
	}
	s.run.Samples = len(s.subset)
	s.run.Subset = &report.Subset{Of: s.Loaded.Count, Seed: s.Cfg.Seed}
	s.run.Config["sample"] = strconv.Itoa(len(s.subset))
	s.run.Config["seed"] = strconv.FormatUint(s.Cfg.Seed, 10)
	s.Banner += "; sample " + s.run.SamplesText()
}

// Total is the number of samples the run evaluates: the dataset's, or the
// subset's with --sample.
func (s *Session) Total() int {
	if s.subset != nil {
		return len(s.subset)
	}
	return s.Loaded.Count
}

// sampled keeps the subset's samples of src. Samples come in index order,
// so one pass over the sorted subset decides each; after the last one the
// rest of the file is not read.
func (s *Session) sampled(src eval.Source) eval.Source {
	if s.subset == nil {
		return src
	}
	subset := s.subset
	return func(yield func(eval.Sample) bool) error {
		next := 0
		return src(func(smp eval.Sample) bool {
			for next < len(subset) && subset[next] < smp.Index {
				next++
			}
			if next == len(subset) {
				return false
			}
			if subset[next] != smp.Index {
				return true
			}
			next++
			return yield(smp) && next < len(subset)
		})
	}
}
