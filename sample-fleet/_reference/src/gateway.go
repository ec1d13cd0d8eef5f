// gateway: the demo fleet's Go service, an API gateway in front of the C api-server. It routes
// requests by path, decodes their JSON bodies, hashes a cache key, answers from a response cache
// or builds the response and encodes it as JSON. Each route's work runs under a pprof label
// (route=NAME), so a profile says which route spent the time. Profiled by Go's runtime/pprof:
//
//	gateway -profiles DIR [-requests N] [-seed S] [-routes users,orders,search] [-sign] [-heap]
//
// writes DIR/cpu.pprof (gzipped profile.proto, 100 Hz) and, with -heap, DIR/heap.pprof (the
// heap profile after the run; the response cache is what stays live). -sign adds an HMAC-SHA256
// signature to every response. Built without modules (GO111MODULE=off) by regenerate.sh.
package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
)

type request struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	User   int               `json:"user"`
	Query  string            `json:"query,omitempty"`
	Items  []item            `json:"items,omitempty"`
	Header map[string]string `json:"header"`
}

type item struct {
	SKU      string  `json:"sku"`
	Quantity int     `json:"quantity"`
	Price    float64 `json:"price"`
}

type response struct {
	Status    int               `json:"status"`
	Route     string            `json:"route"`
	Body      map[string]string `json:"body"`
	Results   []string          `json:"results,omitempty"`
	Signature string            `json:"signature,omitempty"`
}

type handler func(*request) *response

type route struct {
	prefix string
	name   string
	handle handler
}

// The response cache: what a heap profile finds live at the end.
var cache = map[uint64][]byte{}

const cacheLimit = 4096

var signingKey = []byte("demo-fleet-gateway-signing-key")

var words = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet " +
	"kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey")

//go:noinline
func makeRequest(rng *rand.Rand, routes []route) []byte {
	r := routes[rng.Intn(len(routes))]
	req := request{
		Method: "GET",
		Path:   fmt.Sprintf("%s/%d", r.prefix, rng.Intn(5000)),
		User:   rng.Intn(100000),
		Header: map[string]string{"accept": "application/json", "x-trace": fmt.Sprint(rng.Int63())},
	}
	switch r.name {
	case "orders":
		req.Method = "POST"
		for i := rng.Intn(6) + 1; i > 0; i-- {
			req.Items = append(req.Items, item{fmt.Sprintf("SKU-%05d", rng.Intn(99999)),
				rng.Intn(9) + 1, float64(rng.Intn(10000)) / 100})
		}
	case "search":
		var q []string
		for i := rng.Intn(4) + 2; i > 0; i-- {
			q = append(q, words[rng.Intn(len(words))])
		}
		req.Query = strings.Join(q, " ")
	}
	b, err := json.Marshal(&req)
	if err != nil {
		panic(err)
	}
	return b
}

//go:noinline
func decodeRequest(b []byte) *request {
	var req request
	if err := json.Unmarshal(b, &req); err != nil {
		panic(err)
	}
	return &req
}

//go:noinline
func lookupRoute(routes []route, path string) *route {
	for i := range routes {
		if strings.HasPrefix(path, routes[i].prefix+"/") {
			return &routes[i]
		}
	}
	return nil
}

//go:noinline
func cacheKey(req *request) uint64 {
	h := fnv.New64a()
	h.Write([]byte(req.Method))
	h.Write([]byte(req.Path))
	h.Write([]byte(req.Query))
	for _, it := range req.Items {
		h.Write([]byte(it.SKU))
	}
	return h.Sum64()
}

//go:noinline
func handleUsers(req *request) *response {
	return &response{Status: 200, Route: "users", Body: map[string]string{
		"id": strings.TrimPrefix(req.Path, "/v1/users/"), "name": fmt.Sprintf("user-%d", req.User)}}
}

//go:noinline
func handleOrders(req *request) *response {
	total := 0.0
	for _, it := range req.Items {
		total += float64(it.Quantity) * it.Price
	}
	return &response{Status: 201, Route: "orders", Body: map[string]string{
		"items": fmt.Sprint(len(req.Items)), "total": fmt.Sprintf("%.2f", total)}}
}

//go:noinline
func handleSearch(req *request) *response {
	terms := strings.Fields(req.Query)
	var results []string
	for _, w := range words {
		for _, t := range terms {
			if strings.Contains(w, t[:1]) {
				results = append(results, w)
				break
			}
		}
	}
	sort.Strings(results)
	return &response{Status: 200, Route: "search", Body: map[string]string{"query": req.Query},
		Results: results}
}

//go:noinline
func sign(b []byte) string {
	mac := hmac.New(sha256.New, signingKey)
	mac.Write(b)
	sum := mac.Sum(nil)
	// Key stretching, as the signing service asks for: re-hash the digest a few times.
	for i := 0; i < 16; i++ {
		s := sha256.Sum256(sum)
		sum = s[:]
	}
	return hex.EncodeToString(sum)
}

//go:noinline
func encodeResponse(resp *response) []byte {
	b, err := json.Marshal(resp)
	if err != nil {
		panic(err)
	}
	return b
}

func serve(raw []byte, routes []route, signing bool) int {
	req := decodeRequest(raw)
	r := lookupRoute(routes, req.Path)
	if r == nil {
		return 404
	}
	n := 0
	pprof.Do(context.Background(), pprof.Labels("route", r.name), func(context.Context) {
		key := cacheKey(req)
		if b, ok := cache[key]; ok {
			n = len(b)
			return
		}
		resp := r.handle(req)
		if signing {
			resp.Signature = sign(encodeResponse(resp))
		}
		b := encodeResponse(resp)
		if len(cache) < cacheLimit {
			cache[key] = b
		}
		n = len(b)
	})
	return n
}

func run() error {
	dir := flag.String("profiles", "", "directory for cpu.pprof (and heap.pprof)")
	requests := flag.Int("requests", 20000, "requests to serve")
	seed := flag.Int64("seed", 1, "random seed of the requests")
	routeNames := flag.String("routes", "users,orders", "routes enabled (users, orders, search)")
	signing := flag.Bool("sign", false, "sign every response (HMAC-SHA256)")
	heap := flag.Bool("heap", false, "also write heap.pprof")
	flag.Parse()
	if *dir == "" || flag.NArg() != 0 {
		return fmt.Errorf("usage: gateway -profiles DIR [-requests N] [-seed S] [-routes LIST] [-sign] [-heap]")
	}
	all := map[string]route{
		"users":  {"/v1/users", "users", handleUsers},
		"orders": {"/v1/orders", "orders", handleOrders},
		"search": {"/v1/search", "search", handleSearch},
	}
	var routes []route
	for _, name := range strings.Split(*routeNames, ",") {
		r, ok := all[name]
		if !ok {
			return fmt.Errorf("unknown route %q", name)
		}
		routes = append(routes, r)
	}
	if *heap {
		// One sample per 32 KiB allocated on average (the default is 512 KiB): enough samples for
		// a small run, without the profiler's stack walks taking much of the CPU profile.
		runtime.MemProfileRate = 32 << 10
	}
	cpu, err := os.Create(filepath.Join(*dir, "cpu.pprof"))
	if err != nil {
		return err
	}
	defer cpu.Close()
	if err := pprof.StartCPUProfile(cpu); err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(*seed))
	bytes := 0
	for i := 0; i < *requests; i++ {
		bytes += serve(makeRequest(rng, routes), routes, *signing)
	}
	pprof.StopCPUProfile()
	fmt.Printf("served %d requests, %d bytes, %d cached\n", *requests, bytes, len(cache))
	if *heap {
		// The heap profile reports the heap as of the last collection.
		runtime.GC()
		f, err := os.Create(filepath.Join(*dir, "heap.pprof"))
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.WriteHeapProfile(f)
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}
