package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// sample is what the attacks on one webhook at one level measured: the
// latency of every request, the attack time they took and the server's CPU
// time, and per attack its throughput and p99 (for the per-round ratios).
type sample struct {
	latencies []time.Duration
	elapsed   time.Duration
	cpu       time.Duration
	rates     []float64
	p99s      []time.Duration
	bad       int    // responses other than the intended verdict
	firstBad  string // the first of them
}

func (s *sample) throughput() float64 {
	return float64(len(s.latencies)) / s.elapsed.Seconds()
}

// perCPU is the requests served per second of the server's CPU time.
func (s *sample) perCPU() float64 {
	return float64(len(s.latencies)) / s.cpu.Seconds()
}

// quantile returns the q-quantile of sorted latencies (nearest rank).
func quantile(l []time.Duration, q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	i := int(q*float64(len(l))+0.5) - 1
	return l[max(0, min(i, len(l)-1))]
}

func (s *sample) quantile(q float64) time.Duration { return quantile(s.latencies, q) }

// attack runs one bounded attack with clients concurrent clients, each
// sending its next request as soon as the last is answered, and adds its
// results to s.
func attack(s *sample, srv *server, tr vegeta.Targeter, clients uint64, d time.Duration) error {
	a := newAttacker(srv.tlsConfig, clients)
	cpu0, err := srv.cpu()
	if err != nil {
		return err
	}
	start := time.Now()
	var lat []time.Duration
	for r := range a.Attack(tr, vegeta.Rate{Freq: 0}, d, "load") {
		lat = append(lat, r.Latency)
		if why := check(r); why != "" {
			if s.bad == 0 {
				s.firstBad = why
			}
			s.bad++
		}
	}
	elapsed := time.Since(start)
	cpu1, err := srv.cpu()
	if err != nil {
		return err
	}
	s.elapsed += elapsed
	s.cpu += cpu1 - cpu0
	s.latencies = append(s.latencies, lat...)
	s.rates = append(s.rates, float64(len(lat))/elapsed.Seconds())
	slices.Sort(lat)
	s.p99s = append(s.p99s, quantile(lat, 0.99))
	return nil
}

// median returns the median of the ratios a[i]/b[i].
func median(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	slices.Sort(r)
	if len(r)%2 == 1 {
		return r[len(r)/2]
	}
	return (r[len(r)/2-1] + r[len(r)/2]) / 2
}

func seconds(d []time.Duration) []float64 {
	f := make([]float64, len(d))
	for i := range d {
		f[i] = d[i].Seconds()
	}
	return f
}

// loadTest measures every workload in turn: its webhook and its no-op at
// every level, alternating (in odd rounds the no-op goes first, in even
// rounds the checked webhook). Each workload's table ends with its line
// in the format for scripts; the lines are repeated at the end, one per
// workload in the order measured.
func loadTest(srv *server, ws []comparison, levels []uint64, d time.Duration, rounds int, before bool) error {
	var lines, bad []string
	for _, w := range ws {
		line, wrong, err := loadWorkload(srv, w, levels, d, rounds, before && w.full)
		if err != nil {
			return err
		}
		lines = append(lines, line)
		bad = append(bad, wrong...)
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "\n"))
	}
	fmt.Printf("\none line per workload (%s):\n", workloadNames(ws))
	for _, l := range lines {
		fmt.Println(l)
	}
	return nil
}

func workloadNames(ws []comparison) string {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.name
	}
	return strings.Join(names, ", ")
}

// loadWorkload measures one workload and prints its table; it returns the
// line for scripts, at the highest level, and the wrong answers.
func loadWorkload(srv *server, w comparison, levels []uint64, d time.Duration, rounds int, before bool) (string, []string, error) {
	noopTargets := targeter(srv.base+w.noop, w.m, true)
	realTargets := targeter(srv.base+w.path, w.m, false)
	beforeTargets := targeter(srv.base+beforePath, w.m, false)

	// Warm up both: connections, TLS sessions, the heap.
	warm := &sample{}
	for _, tr := range []vegeta.Targeter{noopTargets, realTargets} {
		if err := attack(warm, srv, tr, 16, time.Second); err != nil {
			return "", nil, err
		}
	}
	if warm.bad > 0 {
		return "", nil, fmt.Errorf("%s: warm-up: %d wrong answers, the first: %s", w.name, warm.bad, warm.firstBad)
	}

	noop := make([]sample, len(levels))
	real := make([]sample, len(levels))
	full := make([]sample, len(levels))
	for i, c := range levels {
		for round := 0; round < rounds; round++ {
			first, second := &noop[i], &real[i]
			ft, st := noopTargets, realTargets
			if round%2 == 1 {
				first, second, ft, st = second, first, st, ft
			}
			if err := attack(first, srv, ft, c, d); err != nil {
				return "", nil, err
			}
			if err := attack(second, srv, st, c, d); err != nil {
				return "", nil, err
			}
			if before {
				if err := attack(&full[i], srv, beforeTargets, c, d); err != nil {
					return "", nil, err
				}
			}
		}
	}

	fmt.Printf("\n%s\n%d rounds of %v per webhook and level, alternating; ratios are medians of the rounds' ratios\n", w.about, rounds, d)
	fmt.Printf("%-8s %-10s %9s %8s %8s %9s %9s %9s %8s %8s %7s\n", "clients", "webhook", "requests", "req/s", "req/cpu·s", "p50", "p99", "p99.9", "req/s %", "/cpu·s %", "p99 ×")
	var last string
	var bad []string
	for i, c := range levels {
		n, r := &noop[i], &real[i]
		slices.Sort(n.latencies)
		slices.Sort(r.latencies)
		ratio := 100 * median(r.rates, n.rates)
		cpuRatio := 100 * r.perCPU() / n.perCPU()
		p99 := median(seconds(r.p99s), seconds(n.p99s))
		fmt.Printf("%-8d %-10s %9d %8.0f %8.0f %9s %9s %9s\n", c, "no-op", len(n.latencies), n.throughput(), n.perCPU(), ms(n.quantile(0.5)), ms(n.quantile(0.99)), ms(n.quantile(0.999)))
		fmt.Printf("%-8d %-10s %9d %8.0f %8.0f %9s %9s %9s %7.0f%% %7.0f%% %6.2f× %s\n", c, "immutable", len(r.latencies), r.throughput(), r.perCPU(), ms(r.quantile(0.5)), ms(r.quantile(0.99)), ms(r.quantile(0.999)), ratio, cpuRatio, p99,
			"p50 "+us(r.quantile(0.5)-n.quantile(0.5)))
		if before {
			f := &full[i]
			slices.Sort(f.latencies)
			fmt.Printf("%-8d %-10s %9d %8.0f %8.0f %9s %9s %9s %7.0f%% %7.0f%% %6.2f×\n", c, "full-dec.", len(f.latencies), f.throughput(), f.perCPU(), ms(f.quantile(0.5)), ms(f.quantile(0.99)), ms(f.quantile(0.999)),
				100*median(f.rates, n.rates), 100*f.perCPU()/n.perCPU(), median(seconds(f.p99s), seconds(n.p99s)))
			if f.bad > 0 {
				bad = append(bad, fmt.Sprintf("%s: full-decode at %d clients: %d wrong answers, the first: %s", w.name, c, f.bad, f.firstBad))
			}
		}
		last = fmt.Sprintf("webhook: %d%% of the no-op webhook's throughput at %d clients, p99 %.2f× the no-op's", int(ratio+0.5), c, p99)
		for _, s := range []struct {
			name string
			*sample
		}{{"no-op", n}, {"immutable", r}} {
			if s.bad > 0 {
				bad = append(bad, fmt.Sprintf("%s: %s at %d clients: %d wrong answers, the first: %s", w.name, s.name, c, s.bad, s.firstBad))
			}
		}
	}
	fmt.Println(last)
	return last, bad, nil
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + "ms"
}

// us formats a difference of latencies to the microsecond, signed: what
// the check adds to the no-op's median is a few microseconds, below ms's
// resolution.
func us(d time.Duration) string {
	return fmt.Sprintf("%+dµs", d.Round(time.Microsecond)/time.Microsecond)
}

// soakTest sends the mix to the immutability webhook at a fixed rate for d,
// checking every answer, and reports the heap, the process's resident
// memory and the goroutines at the start (after a warm-up minute's first
// 30 seconds) and the end, with a line every minute between.
func soakTest(srv *server, m mix, d time.Duration, rate int) error {
	a := newAttacker(srv.tlsConfig, 64)
	tr := targeter(srv.base+"/validate-immutable-fields", m, false)
	fmt.Printf("soak: %v at %d requests/s (mix as above), 127.0.0.1\n", d, rate)
	fmt.Printf("%-8s %10s %9s %9s %6s  %s\n", "time", "requests", "p50", "p99", "wrong", "server")

	results := a.Attack(tr, vegeta.Rate{Freq: rate, Per: time.Second}, d, "soak")
	start := time.Now()
	var (
		minute             sample
		total, bad         int
		firstBad           string
		startLine, endLine string
		nextReport         = 30 * time.Second
	)
	report := func(label string) string {
		slices.Sort(minute.latencies)
		stats, err := srv.stats()
		if err != nil {
			stats = "stats: " + err.Error()
		}
		line := fmt.Sprintf("%-8s %10d %9s %9s %6d  %s", label, total, ms(minute.quantile(0.5)), ms(minute.quantile(0.99)), bad, stats)
		fmt.Println(line)
		minute = sample{}
		return line
	}
	for r := range results {
		total++
		minute.latencies = append(minute.latencies, r.Latency)
		if why := check(r); why != "" {
			if bad == 0 {
				firstBad = why
			}
			bad++
		}
		if el := time.Since(start); el >= nextReport {
			line := report(el.Round(time.Second).String())
			if startLine == "" {
				startLine = line
			}
			nextReport += time.Minute
		}
	}
	endLine = report("end")
	fmt.Printf("\nsoak start: %s\nsoak end:   %s\n", startLine, endLine)
	if bad > 0 {
		return fmt.Errorf("soak: %d of %d answers were not the intended verdict, the first: %s", bad, total, firstBad)
	}
	fmt.Printf("soak: %d requests, every answer the intended verdict (%d denials intended)\n", total, total*m.denials/len(m.bodies))
	return nil
}

// memory returns the live heap after a collection, the resident set size
// of the process and the number of goroutines.
func memory() (heap, rss uint64, goroutines int) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				rss = kb * 1024
			}
		}
	}
	return ms.HeapAlloc, rss, runtime.NumGoroutine()
}

func mib(b uint64) string {
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + "MiB"
}
