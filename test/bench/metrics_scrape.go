package bench

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// scrapeMetrics reads a Prometheus text exposition from url.
func scrapeMetrics(url string) (string, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", fmt.Errorf("metrics %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("metrics %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("metrics %s: %s", url, resp.Status)
	}
	return string(b), nil
}

// metricTotal sums the samples of series name (exactly, labels aside) whose labels hold every one
// of the label="value" pairs of with; e.g. metricTotal(text, "x_seconds_count", `operation="records"`).
func metricTotal(text, name string, with ...string) float64 {
	total := 0.0
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		labels := ""
		if rest[0] == '{' {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				continue
			}
			labels, rest = rest[1:end], rest[end+1:]
		}
		matches := true
		for _, pair := range with {
			if !strings.Contains(","+labels+",", ","+pair+",") {
				matches = false
			}
		}
		f := strings.Fields(rest)
		if !matches || len(f) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			total += v
		}
	}
	return total
}

// histogramMean is the mean of the observations a histogram gained between two scrapes (its _sum
// and _count series restricted by with), or 0 with no new observation; n is how many there were.
func histogramMean(before, after, name string, with ...string) (mean time.Duration, n int) {
	count := metricTotal(after, name+"_count", with...) - metricTotal(before, name+"_count", with...)
	if count <= 0 {
		return 0, 0
	}
	sum := metricTotal(after, name+"_sum", with...) - metricTotal(before, name+"_sum", with...)
	return time.Duration(sum / count * float64(time.Second)), int(count)
}

// liveHeap is the Go heap that survived the last garbage collection, from a Go program's own
// metrics: the next collection's goal is that heap grown by GOGC percent.
func liveHeap(text string) int64 {
	gogc := metricTotal(text, "go_gc_gogc_percent")
	if gogc <= 0 {
		return 0
	}
	return int64(metricTotal(text, "go_memstats_next_gc_bytes") / (1 + gogc/100))
}
