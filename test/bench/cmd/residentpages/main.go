// Command residentpages reports which parts of a running process's binary are resident: bytes per
// ELF section, and per package (from the binary's symbol table, so build it without -s), of the
// pages of the executable that /proc/PID/pagemap shows present.
//
// Why: a Go process's RSS includes the pages of its binary that it has mapped, and on a machine whose
// page cache holds the binary in large folios those are far more than the code it runs
// (docs/benchmarks.md, "Binary size and resident pages"). This tells which packages they belong to.
//
//	go run ./test/bench/cmd/residentpages PID [BINARY]
//
// BINARY defaults to /proc/PID/exe. Reading pagemap needs the right to ptrace PID.
package main

import (
	"bufio"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const pageSize = 4096

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: residentpages PID [BINARY]")
		os.Exit(2)
	}
	pid := os.Args[1]
	bin := "/proc/" + pid + "/exe"
	if len(os.Args) == 3 {
		bin = os.Args[2]
	}
	if err := run(pid, bin); err != nil {
		fmt.Fprintln(os.Stderr, "residentpages:", err)
		os.Exit(1)
	}
}

func run(pid, bin string) error {
	f, err := elf.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	present, err := presentPages(pid, bin)
	if err != nil {
		return err
	}
	fmt.Printf("%-20s %10s %10s\n", "section", "mapped MB", "resident")
	for _, s := range f.Sections {
		if s.Addr == 0 || s.Size == 0 || s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		r := 0
		for pg := s.Addr &^ (pageSize - 1); pg < s.Addr+s.Size; pg += pageSize {
			if present[pg] {
				r += pageSize
			}
		}
		fmt.Printf("%-20s %10.2f %10.2f\n", s.Name, float64(s.Size)/1e6, float64(r)/1e6)
	}
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("%s has no symbol table (built with -s?): %w", bin, err)
	}
	byGroup := map[string]uint64{}
	for _, s := range syms {
		if s.Size == 0 || s.Value == 0 {
			continue
		}
		for pg := s.Value &^ (pageSize - 1); pg < s.Value+s.Size; pg += pageSize {
			if present[pg] {
				byGroup[group(s.Name)] += min(s.Value+s.Size, pg+pageSize) - max(s.Value, pg)
			}
		}
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b string) int { return cmp.Compare(byGroup[b], byGroup[a]) })
	fmt.Printf("\n%-10s %s\n", "resident", "symbols of (MB; pclntab and other unnamed data not included)")
	for _, g := range groups[:min(30, len(groups))] {
		fmt.Printf("%10.2f %s\n", float64(byGroup[g])/1e6, g)
	}
	return nil
}

// presentPages is the set of page addresses of bin's mappings in pid that are present in memory.
func presentPages(pid, bin string) (map[uint64]bool, error) {
	target, err := os.Stat(bin)
	if err != nil {
		return nil, err
	}
	maps, err := os.Open("/proc/" + pid + "/maps")
	if err != nil {
		return nil, err
	}
	defer maps.Close()
	pagemap, err := os.Open("/proc/" + pid + "/pagemap")
	if err != nil {
		return nil, err
	}
	defer pagemap.Close()
	present := map[uint64]bool{}
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		if st, err := os.Stat(fields[5]); err != nil || !os.SameFile(st, target) {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("maps line %q", sc.Text())
		}
		entries := make([]byte, (end-start)/pageSize*8)
		if _, err := pagemap.ReadAt(entries, int64(start/pageSize*8)); err != nil {
			return nil, fmt.Errorf("reading pagemap: %w", err)
		}
		for i := range (end - start) / pageSize {
			if binary.LittleEndian.Uint64(entries[i*8:])>>63 == 1 { // bit 63: page present
				present[start+i*pageSize] = true
			}
		}
	}
	if len(present) == 0 {
		return nil, fmt.Errorf("no resident page of %s in process %s (is it running that binary?)", bin, pid)
	}
	return present, sc.Err()
}

var (
	symbolPrefix = regexp.MustCompile(`^(go:(func|type|string|itab)\.\*?|type:\*?)`)
	apiGroup     = regexp.MustCompile(`^k8s\.io/api/([^/]+)`)
	clientGoGen  = regexp.MustCompile(`^k8s\.io/client-go/(informers|listers|applyconfigurations|kubernetes)\b`)
)

// group is the package a symbol belongs to, folded: a module's first three path elements, client-go's
// generated typed clients, informers, listers and apply configurations as one, each k8s.io/api group.
func group(sym string) string {
	name := strings.TrimLeft(symbolPrefix.ReplaceAllString(sym, ""), "*(")
	pkg := name
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		pkg = name[:slash+1+dot]
	}
	if clientGoGen.MatchString(pkg) {
		return "k8s.io/client-go generated (typed clients, informers, listers, apply configurations)"
	}
	if m := apiGroup.FindStringSubmatch(pkg); m != nil {
		return "k8s.io/api/" + m[1]
	}
	if pkg == "" {
		return "(linker data without a package: go:func.* and the like)"
	}
	parts := strings.Split(pkg, "/")
	if strings.Contains(parts[0], ".") && len(parts) > 3 {
		return strings.Join(parts[:3], "/")
	}
	return pkg
}
