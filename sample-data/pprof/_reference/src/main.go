// Writes the Go profiles of sample-data/pprof/ with runtime/pprof (see regenerate.sh):
//
//	profgen cpu   FILE  a CPU profile of two labelled workers (pprof.Do), with inlined calls
//	profgen heap  FILE  a heap profile (every allocation sampled) of a few call paths
//	profgen mutex FILE  a mutex contention profile (every event recorded)
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var sink []byte

//go:noinline
func spin(n int) uint64 {
	var x uint64 = 1
	for i := 0; i < n; i++ {
		x = mix(x, uint64(i))
	}
	return x
}

// Small enough to be inlined into spin: its frame is a second line of spin's locations.
func mix(x, i uint64) uint64 {
	return x*6364136223846793005 + i ^ (x >> 7)
}

//go:noinline
func hashWork(until time.Time) uint64 {
	var total uint64
	for time.Now().Before(until) {
		total += spin(20000)
	}
	return total
}

//go:noinline
func sortWork(until time.Time) uint64 {
	var total uint64
	for time.Now().Before(until) {
		total += spin(5000) + spin(5000)
	}
	return total
}

func cpu(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	until := time.Now().Add(600 * time.Millisecond)
	var wg sync.WaitGroup
	for _, w := range []struct {
		name string
		work func(time.Time) uint64
	}{{"hash", hashWork}, {"sort", sortWork}} {
		wg.Add(1)
		go func(name string, work func(time.Time) uint64) {
			defer wg.Done()
			pprof.Do(context.Background(), pprof.Labels("worker", name, "tier", "batch"),
				func(context.Context) { work(until) })
		}(w.name, w.work)
	}
	wg.Wait()
	pprof.StopCPUProfile()
	return nil
}

//go:noinline
func allocSmall(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 64)
	}
}

//go:noinline
func allocLarge(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 1<<16)
	}
}

func heap(path string) error {
	runtime.MemProfileRate = 1
	allocSmall(300)
	allocLarge(20)
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

//go:noinline
func contend(mu *sync.Mutex, n int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		mu.Lock()
		time.Sleep(50 * time.Microsecond)
		mu.Unlock()
	}
}

func mutex(path string) error {
	runtime.SetMutexProfileFraction(1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go contend(&mu, 50, &wg)
	}
	wg.Wait()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("mutex").WriteTo(f, 0)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: profgen cpu|heap|mutex FILE")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "cpu":
		err = cpu(os.Args[2])
	case "heap":
		err = heap(os.Args[2])
	case "mutex":
		err = mutex(os.Args[2])
	default:
		err = fmt.Errorf("unknown profile %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
