// Command tkn20 times Cloudflare CIRCL's TKN20 CP-ABE (abe/cpabe/tkn20) on
// the abbe-peers workloads and prints CSV on stdout; see README.md.
package main

import (
	"bytes"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cloudflare/circl/abe/cpabe/tkn20"
)

const peer = "circl-tkn20"

// workload is one (policy, attributes, message) cell.
type workload struct {
	name   string // and | and-not | circl-bench
	n      int    // number of leaves in the policy
	policy string
	attrs  map[string]string
	msg    []byte
	// Keys that must not decrypt (each label -> reason).
	mustFail []failCase
}

type failCase struct {
	why   string
	attrs map[string]string
}

func main() {
	nList := flag.String("n", "10,25,50,100", "comma-separated policy sizes")
	reps := flag.Int("reps", 20, "timed repetitions per operation (after one warm-up)")
	circlBench := flag.Bool("circl-bench", false, "also run the workload of CIRCL's bench_test.go")
	flag.Parse()
	if *reps < 1 {
		fatalf("--reps must be at least 1")
	}
	var ns []int
	for _, s := range strings.Split(*nList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("--n: bad size %q", s)
		}
		ns = append(ns, n)
	}

	runtime.GOMAXPROCS(1)

	pk, msk, err := tkn20.Setup(rand.Reader) // once, not reported
	check(err, "setup")

	msg := make([]byte, 32)
	_, err = rand.Read(msg)
	check(err, "message")

	fmt.Println("peer,workload,n,op,reps,cpu_min_ms,cpu_median_ms,wall_median_ms,bytes")
	for _, n := range ns {
		for _, w := range []workload{andWorkload(n, msg), andNotWorkload(n, msg)} {
			run(&pk, &msk, w, *reps)
		}
		notLabelMissing(&pk, &msk, n, msg)
	}
	if *circlBench {
		for _, w := range circlBenchWorkloads() {
			run(&pk, &msk, w, *reps)
		}
	}
}

// andWorkload: (a0: v) and ... and (aN-1: v); the key holds a0..aN-1 = v.
func andWorkload(n int, msg []byte) workload {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = fmt.Sprintf("(a%d: v)", i)
	}
	return workload{
		name: "and", n: n, policy: strings.Join(terms, " and "),
		attrs: allV(n), msg: msg,
		mustFail: []failCase{{"key lacks a" + strconv.Itoa(n-1), allV(n - 1)}},
	}
}

// andNotWorkload: the AND with the last term negated,
// (a0: v) and ... and not (aN-1: w); the key still holds aN-1 = v.
func andNotWorkload(n int, msg []byte) workload {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = fmt.Sprintf("(a%d: v)", i)
	}
	last := fmt.Sprintf("a%d", n-1)
	terms[n-1] = "not (" + last + ": w)"
	holdsW := allV(n)
	holdsW[last] = "w"
	w := workload{
		name: "and-not", n: n, policy: strings.Join(terms, " and "),
		attrs: allV(n), msg: msg,
		mustFail: []failCase{{"key holds " + last + " = w", holdsW}},
	}
	if n > 1 { // drop a positive attribute
		w.mustFail = append(w.mustFail, failCase{"key lacks a0", without(allV(n), "a0")})
	}
	return w
}

// circlBenchWorkloads reproduces the two cases of CIRCL's
// abe/cpabe/tkn20/bench_test.go (policies, attributes and message).
func circlBenchWorkloads() []workload {
	msg := []byte("drink your ovaltine now")
	// longPolicy/Attrs: k0:v0 and k1:v1 or k2:v2 and k3:v3 or ... k49:v49
	var b strings.Builder
	long := make(map[string]string, 50)
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "k%d:v%d", i, i)
		if i != 49 {
			if i%2 == 0 {
				b.WriteString(" and ")
			} else {
				b.WriteString(" or ")
			}
		}
		long["k"+strconv.Itoa(i)] = "v" + strconv.Itoa(i)
	}
	return []workload{
		{
			name: "circl-bench", n: 3, msg: msg,
			policy: "(k1:v1 or k1:v2) and not k2:v3",
			attrs:  map[string]string{"k1": "v2", "k2": "v4"},
			mustFail: []failCase{
				{"key holds k2 = v3", map[string]string{"k1": "v2", "k2": "v3"}},
			},
		},
		{
			name: "circl-bench", n: 50, msg: msg, policy: b.String(), attrs: long,
			// Every AND pair (k2i, k2i+1) is one disjunct: dropping one label
			// of each pair makes the whole policy false.
			mustFail: []failCase{{"key lacks k1,k3,...,k49", oddsDropped(long)}},
		},
	}
}

func run(pk *tkn20.PublicKey, msk *tkn20.SystemSecretKey, w workload, reps int) {
	var policy tkn20.Policy
	check(policy.FromString(w.policy), "policy %q", w.policy)
	var attrs tkn20.Attributes
	attrs.FromMap(w.attrs)
	if !policy.Satisfaction(attrs) {
		fatalf("%s n=%d: attributes do not satisfy the policy", w.name, w.n)
	}

	var key tkn20.AttributeKey
	var ct []byte
	var err error
	keygen := measure(reps, func() {
		key, err = msk.KeyGen(rand.Reader, attrs)
		check(err, "keygen")
	})
	encrypt := measure(reps, func() {
		ct, err = pk.Encrypt(rand.Reader, policy, w.msg)
		check(err, "encrypt")
	})
	decrypt := measure(reps, func() {
		pt, err := key.Decrypt(ct)
		check(err, "%s n=%d: decrypt", w.name, w.n)
		if !bytes.Equal(pt, w.msg) {
			fatalf("%s n=%d: decryption returned a different message", w.name, w.n)
		}
	})

	for _, f := range w.mustFail {
		var a tkn20.Attributes
		a.FromMap(f.attrs)
		k, err := msk.KeyGen(rand.Reader, a)
		check(err, "keygen")
		if pt, err := k.Decrypt(ct); err == nil {
			fatalf("%s n=%d: %s, yet it decrypted (%d bytes)", w.name, w.n, f.why, len(pt))
		}
	}

	keyBytes, err := key.MarshalBinary()
	check(err, "marshal key")
	for _, r := range []struct {
		op string
		t  timing
	}{{"keygen", keygen}, {"encrypt", encrypt}, {"decrypt", decrypt}} {
		fmt.Printf("%s,%s,%d,%s,%d,%.3f,%.3f,%.3f,\n", peer, w.name, w.n, r.op, reps,
			ms(r.t.cpuMin), ms(r.t.cpuMedian), ms(r.t.wallMedian))
	}
	fmt.Printf("%s,%s,%d,ct_bytes,,,,,%d\n", peer, w.name, w.n, len(ct))
	fmt.Printf("%s,%s,%d,key_bytes,,,,,%d\n", peer, w.name, w.n, len(keyBytes))
}

// notLabelMissing reports (on stderr) whether a key that lacks the negated
// label aN-1 altogether decrypts under the and-not policy.
func notLabelMissing(pk *tkn20.PublicKey, msk *tkn20.SystemSecretKey, n int, msg []byte) {
	w := andNotWorkload(n, msg)
	var policy tkn20.Policy
	check(policy.FromString(w.policy), "policy")
	var attrs tkn20.Attributes
	attrs.FromMap(allV(n - 1))
	ct, err := pk.Encrypt(rand.Reader, policy, msg)
	check(err, "encrypt")
	key, err := msk.KeyGen(rand.Reader, attrs)
	check(err, "keygen")
	_, err = key.Decrypt(ct)
	fmt.Fprintf(os.Stderr, "and-not n=%d, key without a%d: satisfaction=%v couldDecrypt=%v decrypt error=%v\n",
		n, n-1, policy.Satisfaction(attrs), attrs.CouldDecrypt(ct), err)
}

type timing struct{ cpuMin, cpuMedian, wallMedian time.Duration }

// measure runs op once to warm up, then reps times, timing each call by the
// process's CPU time (user + system, getrusage) and by the wall clock.
func measure(reps int, op func()) timing {
	op()
	cpu := make([]time.Duration, reps)
	wall := make([]time.Duration, reps)
	for i := 0; i < reps; i++ {
		c0, w0 := cpuTime(), time.Now()
		op()
		wall[i] = time.Since(w0)
		cpu[i] = cpuTime() - c0
	}
	sortD(cpu)
	sortD(wall)
	return timing{cpu[0], median(cpu), median(wall)}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru), "getrusage")
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func sortD(d []time.Duration) { sort.Slice(d, func(i, j int) bool { return d[i] < d[j] }) }

// median of a sorted slice.
func median(d []time.Duration) time.Duration {
	m := len(d) / 2
	if len(d)%2 == 1 {
		return d[m]
	}
	return (d[m-1] + d[m]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// allV: a0..an-1, each with value "v".
func allV(n int) map[string]string {
	m := make(map[string]string, n)
	for i := 0; i < n; i++ {
		m["a"+strconv.Itoa(i)] = "v"
	}
	return m
}

func without(m map[string]string, label string) map[string]string {
	delete(m, label)
	return m
}

func oddsDropped(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if i, _ := strconv.Atoi(k[1:]); i%2 == 0 {
			out[k] = v
		}
	}
	return out
}

func check(err error, format string, args ...any) {
	if err != nil {
		fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "tkn20: "+format+"\n", args...)
	os.Exit(1)
}
