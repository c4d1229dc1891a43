package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// residentBytes is the resident set size of process pid (VmRSS in /proc/PID/status).
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(b, "VmRSS")
}

// anonymousBytes is the part of the resident set that is the process's own memory (RssAnon: heap,
// stacks, the Go runtime's arenas). The rest of VmRSS is file pages (RssFile, RssShmem): mostly the
// executable's code and read-only data, which the kernel maps in blocks around each page touched,
// shares with every process mapping the file and drops under memory pressure. A Go binary of 130 MB
// or more (both tools carry a dozen cloud SDKs) has 60–80 MB of it resident before it does any work.
func anonymousBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(b, "RssAnon")
}

// peakResidentBytes is the highest resident set size process pid has had (VmHWM).
func peakResidentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(b, "VmHWM")
}

// parseStatusKB reads a "Field:  123456 kB" line of a /proc/PID/status file, in bytes.
func parseStatusKB(status []byte, field string) (int64, error) {
	for _, line := range strings.Split(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("/proc status: %s line %q is not \"<number> kB\"", field, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc status: %s line %q: %v", field, line, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("/proc status has no %s line (a kernel thread, or the process has exited)", field)
}

// cpuTime is the user plus system CPU time process pid has used (/proc/PID/stat).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a /proc/PID/stat line. They are in clock
// ticks of 1/100 s, Linux's USER_HZ on every architecture Go supports. The command name (field 2) may
// hold spaces and parentheses, so the fields are counted from its last ')'.
func parseStatCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat %q has no command name", stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat %q has %d fields after the command name, want at least 13", stat, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc stat %q: utime %q, stime %q are not numbers", stat, f[11], f[12])
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// loadAverage1 is the one-minute load average of the machine (/proc/loadavg).
func loadAverage1() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/loadavg is empty")
	}
	return strconv.ParseFloat(f[0], 64)
}
