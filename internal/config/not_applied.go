package config

import (
	"flag"
	"sort"
)

// notAppliedReasons lists the flags zonekeeper accepts and does not apply, each with the reason: the
// external-dns flags whose behaviour is always on or has no meaning here (acceptedNoOp), and three
// whose effect zonekeeper does not offer. --help prints the reason, and a run that sets one logs it
// (Config.NotApplied), so that none is ignored silently.
func notAppliedReasons() map[string]string {
	out := acceptedNoOp()
	out["request-timeout"] = "not applied: a client timeout would also cut the informers' watches"
	out["kube-api-request-timeout"] = "not applied: a client timeout would also cut the informers' watches"
	out["events-emit"] = "zonekeeper always emits its events (Published, Conflict, RecordRejected, InvalidAnnotation)"
	return out
}

// notApplied returns "--flag: reason" for each flag set (on the command line or from the
// environment) that zonekeeper accepts and does not apply.
func notApplied(set map[string]bool) []string {
	reasons := notAppliedReasons()
	var out []string
	for name := range set {
		if r, ok := reasons[name]; ok {
			out = append(out, "--"+name+": "+r)
		}
	}
	sort.Strings(out)
	return out
}

// setFlags names the flags fs was given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
