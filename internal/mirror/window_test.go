package mirror

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// generation builds source contents over names lo..hi-1 in the layout external-dns writes: every
// fourth name a CNAME, every fourth+1 an ownership TXT, the rest A records. gen changes the CNAME
// targets and the A records' group, so a newer generation differs from an older one after rewriting.
func generation(lo, hi int, gen string) map[string]string {
	out := map[string]string{}
	for i := lo; i < hi; i++ {
		k := fmt.Sprintf("/skydns/com/example/h%04d/1", i)
		switch i % 4 {
		case 0:
			out[k] = fmt.Sprintf(`{"host":"lb-%s.example.net","ttl":300,"targetstrip":1}`, gen)
		case 1:
			out[k] = txtValue
		default:
			out[k] = fmt.Sprintf(`{"host":"10.0.%d.%d","ttl":300,"targetstrip":1,"group":"%s"}`, i/250, i%250, gen)
		}
	}
	return out
}

// mirrored is what the destination holds for a source generation under the WAN rules.
func mirrored(t *testing.T, src map[string]string) map[string]string {
	t.Helper()
	rules := mustRules(t, wanRules)
	out := map[string]string{}
	for k, v := range src {
		nv, _ := rewrite(rules, k, []byte(v))
		out["/external/"+k[len("/skydns/"):]] = string(nv)
	}
	return out
}

// windowReader polls the destination prefix as fast as it can while the destination moves from old to
// new, and checks every observation (one range read = one revision) against the only states a
// put-first, delete-last resync can show:
//
//  1. every key is in old or new, with its old or its new value (no third value, no foreign key);
//  2. every key in both old and new is present (a name that exists before and after never vanishes);
//  3. once any stale key (old only) is gone, every new key is present with its new value (deletes
//     come after all puts);
//  4. hence never fewer keys than min(len(old), len(new)).
type windowReader struct {
	old, new  map[string]string
	polls     int
	between   int // observations that were neither old nor new: the resync caught mid-way
	violation error
}

func (r *windowReader) check(s map[string]string) error {
	for k, v := range s {
		ov, inOld := r.old[k]
		nv, inNew := r.new[k]
		if !inOld && !inNew {
			return fmt.Errorf("foreign key %s", k)
		}
		if !(inOld && v == ov) && !(inNew && v == nv) {
			return fmt.Errorf("%s = %s: neither its old nor its new value", k, v)
		}
	}
	staleGone := false
	for k := range r.old {
		_, inNew := r.new[k]
		_, present := s[k]
		if inNew && !present {
			return fmt.Errorf("%s (in old and new) is missing", k)
		}
		if !inNew && !present {
			staleGone = true
		}
	}
	if staleGone {
		for k, v := range r.new {
			if s[k] != v {
				return fmt.Errorf("a stale key is already deleted but %s is %q, not its new value", k, s[k])
			}
		}
	}
	if n := min(len(r.old), len(r.new)); len(s) < n {
		return fmt.Errorf("only %d keys, fewer than %d", len(s), n)
	}
	if sameMap(s, r.old) != nil && sameMap(s, r.new) != nil {
		r.between++
	}
	return nil
}

func (r *windowReader) run(ctx context.Context, c *clientv3.Client, prefix string) {
	for ctx.Err() == nil {
		resp, err := c.Get(ctx, prefix, clientv3.WithPrefix())
		if err != nil {
			continue
		}
		s := make(map[string]string, len(resp.Kvs))
		for _, kv := range resp.Kvs {
			s[string(kv.Key)] = string(kv.Value)
		}
		r.polls++
		if err := r.check(s); err != nil {
			r.violation = fmt.Errorf("poll %d (revision %d): %w", r.polls, resp.Header.Revision, err)
			return
		}
	}
}

// The acceptance test: a reader polling the destination throughout a full resync with
// --delete over 2,000 keys never sees it empty or partial, and CNAME and TXT entries come out as they
// went in. Run for the CronJob form (--once) and for the watch form's initial sync.
func TestNoEmptyWindowDuringDeleteResync(t *testing.T) {
	for _, mode := range []string{"once", "watch"} {
		t.Run(mode, func(t *testing.T) {
			p := startPair(t)
			flags := append(p.baseFlags, "--delete")
			// Old state: names 0..1999 mirrored. New source: names 1000..2999, changed.
			oldSrc, newSrc := generation(0, 2000, "a"), generation(1000, 3000, "b")
			putMany(t, p.sc, oldSrc)
			if code, log := runOnce(t, flags...); code != 0 {
				t.Fatalf("seeding: exit %d\n%s", code, log)
			}
			old, want := mirrored(t, oldSrc), mirrored(t, newSrc)
			expectPrefix(t, p.dc, "/external/", old, time.Second)
			if _, err := p.sc.Delete(context.Background(), "/skydns/", clientv3.WithPrefix()); err != nil {
				t.Fatal(err)
			}
			putMany(t, p.sc, newSrc)

			r := &windowReader{old: old, new: want}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); r.run(ctx, p.dc, "/external/") }()
			if mode == "once" {
				code, log := runOnce(t, flags...)
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, log)
				}
				t.Logf("mirror: %s", lastLine(log))
			} else {
				runMirror(t, flags...)
				expectPrefix(t, p.dc, "/external/", want, 30*time.Second)
			}
			time.Sleep(50 * time.Millisecond)
			cancel()
			wg.Wait()
			if r.violation != nil {
				t.Fatal(r.violation)
			}
			expectPrefix(t, p.dc, "/external/", want, time.Second)
			t.Logf("%d polls, %d caught mid-resync", r.polls, r.between)
			if r.polls < 3 {
				t.Fatalf("the reader polled only %d times: the test saw nothing", r.polls)
			}
			// CNAME and TXT entries are byte-identical to the source.
			dst := getPrefix(t, p.dc, "/external/")
			for k, v := range newSrc {
				i := 0
				fmt.Sscanf(k, "/skydns/com/example/h%04d/1", &i)
				if i%4 < 2 && dst["/external/"+k[len("/skydns/"):]] != v {
					t.Errorf("%s changed: %s -> %s", k, v, dst["/external/"+k[len("/skydns/"):]])
				}
			}
		})
	}
}

func lastLine(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
