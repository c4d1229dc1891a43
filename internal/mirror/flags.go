package mirror

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Defaults.
const (
	DefaultResyncInterval = 10 * time.Minute
	// DefaultMaxTxnOps is etcd's default --max-txn-ops: the most operations one transaction may hold.
	DefaultMaxTxnOps = 128
	// DefaultTimeout bounds each etcd call, so an unreachable etcd fails a sync instead of hanging it.
	DefaultTimeout = 10 * time.Second
)

// Config is the mirror's settings, from ParseArgs or built by hand.
type Config struct {
	Src, Dst Side
	// SrcDirectory and DstDirectory are the etcd paths copied from and to. Both are treated as
	// directories ("/skydns" means the keys under "/skydns/").
	SrcDirectory, DstDirectory string
	// Ignore lists source key paths that are not copied (each covers itself and the keys below it).
	Ignore []string
	// RulesFile is etcd-injector's rules file; empty means copy every value unchanged.
	RulesFile string
	// Rules are the parsed rules (Main fills them from RulesFile).
	Rules []Rule
	// Delete removes destination keys that have no source key in every full sync.
	Delete bool
	// Once runs one full sync and returns.
	Once bool
	// ResyncInterval is how often the watch is restarted with a full compare to heal drift.
	ResyncInterval time.Duration
	// MaxTxnOps is the destination etcd's --max-txn-ops.
	MaxTxnOps int
	// Timeout bounds each etcd call.
	Timeout           time.Duration
	LogLevel          string
	LogFormat         string
	Verbose           bool
	srcDir, dstDir    string // normalised, ending in "/"
	normalisedIgnores []string
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Src:            Side{Name: "src"},
		Dst:            Side{Name: "dst"},
		ResyncInterval: DefaultResyncInterval,
		MaxTxnOps:      DefaultMaxTxnOps,
		Timeout:        DefaultTimeout,
		LogLevel:       "info",
		LogFormat:      "text",
	}
}

// option is one setting, reachable by several flag names (etcd-injector's short aliases included) and
// several environment variables (etcd-injector's names first).
type option struct {
	names   []string
	env     []string
	usage   string
	boolean bool
	list    bool
	set     func(string) error
}

// flagValue adapts an option to flag.Value.
type flagValue struct{ o *option }

func (v flagValue) String() string   { return "" }
func (v flagValue) IsBoolFlag() bool { return v.o.boolean }
func (v flagValue) Set(s string) error {
	if v.o.list {
		// etcd-injector's list flags (urfave/cli) split values on commas.
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				if err := v.o.set(part); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return v.o.set(s)
}

func (c *Config) options() []*option {
	str := func(p *string) func(string) error { return func(s string) error { *p = s; return nil } }
	list := func(p *[]string) func(string) error {
		return func(s string) error { *p = append(*p, s); return nil }
	}
	boolean := func(p *bool) func(string) error {
		return func(s string) error {
			b, err := strconv.ParseBool(s)
			if err != nil {
				if s == "yes" {
					b, err = true, nil
				} else if s == "no" {
					b, err = false, nil
				}
			}
			if err != nil {
				return fmt.Errorf("%q is not a boolean", s)
			}
			*p = b
			return nil
		}
	}
	opts := []*option{
		{names: []string{"src-directory", "s"}, env: []string{"ETCD_SRC_DIRECTORY"}, usage: "etcd path to copy from, e.g. /skydns-internal (required)", set: str(&c.SrcDirectory)},
		{names: []string{"dst-directory", "d"}, env: []string{"ETCD_DST_DIRECTORY"}, usage: "etcd path to copy to, e.g. /skydns (required)", set: str(&c.DstDirectory)},
		{names: []string{"rules-filepath", "f"}, env: []string{"RULES_FILEPATH"}, usage: "etcd-injector rules file (YAML list of jsonpath/repl); without it values are copied unchanged", set: str(&c.RulesFile)},
		{names: []string{"ignore"}, env: []string{"IGNORE_KEYS"}, list: true, usage: "source key path not to copy, with everything below it (repeatable or comma-separated)", set: list(&c.Ignore)},
		{names: []string{"delete"}, boolean: true, usage: "remove destination keys that have no source key (puts first, in transactions; never an empty window)", set: boolean(&c.Delete)},
		{names: []string{"once"}, boolean: true, usage: "one full sync, then exit (0 on success, 1 on failure): for CronJobs", set: boolean(&c.Once)},
		{names: []string{"resync-interval"}, usage: "how often to compare the whole prefix again and heal drift", set: func(s string) error {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration like 10m", s)
			}
			c.ResyncInterval = d
			return nil
		}},
		{names: []string{"max-txn-ops"}, usage: "the destination etcd's --max-txn-ops (default 128): a full sync that fits is one transaction", set: func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < 2 {
				return fmt.Errorf("%q is not an integer of at least 2", s)
			}
			c.MaxTxnOps = n
			return nil
		}},
		{names: []string{"etcd-timeout"}, usage: "timeout of each etcd call", set: func(s string) error {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration like 10s", s)
			}
			c.Timeout = d
			return nil
		}},
		{names: []string{"log-level"}, usage: "debug, info, warn or error", set: str(&c.LogLevel)},
		{names: []string{"log-format"}, usage: "text or json", set: func(s string) error {
			if s != "text" && s != "json" {
				return fmt.Errorf("%q: must be text or json", s)
			}
			c.LogFormat = s
			return nil
		}},
		{names: []string{"verbose", "x"}, boolean: true, usage: "log every copied key (same as --log-level=debug)", set: boolean(&c.Verbose)},
	}
	for _, s := range []*Side{&c.Src, &c.Dst} {
		n, up := s.Name, strings.ToUpper(s.Name)
		opts = append(opts,
			&option{names: []string{n + "-endpoints"}, env: []string{"ETCD_" + up + "_ENDPOINTS"}, list: true, usage: n + " etcd endpoints, e.g. https://etcd:2379 (required; repeatable or comma-separated)", set: list(&s.Endpoints)},
			&option{names: []string{n + "-username"}, env: []string{"ETCD_" + up + "_USERNAME"}, usage: n + " etcd user name", set: str(&s.Username)},
			&option{names: []string{n + "-password"}, env: []string{"ETCD_" + up + "_PASSWORD"}, usage: n + " etcd password (prefer the environment variable ETCD_" + up + "_PASSWORD)", set: str(&s.Password)},
			&option{names: []string{n + "-ca-file", n + "-cafile"}, env: []string{"ETCD_" + up + "_CA_FILE"}, usage: n + " etcd CA bundle (PEM)", set: str(&s.CAFile)},
			&option{names: []string{n + "-cert-file", n + "-certfile"}, env: []string{"ETCD_" + up + "_CERT_FILE"}, usage: n + " etcd client certificate (PEM)", set: str(&s.CertFile)},
			&option{names: []string{n + "-key-file", n + "-keyfile"}, env: []string{"ETCD_" + up + "_KEY_FILE"}, usage: n + " etcd client key (PEM)", set: str(&s.KeyFile)},
			&option{names: []string{n + "-tls-server-name"}, env: []string{"ETCD_" + up + "_TLS_SERVER_NAME"}, usage: n + " etcd server name to verify", set: str(&s.ServerName)},
			&option{names: []string{n + "-tls-insecure"}, boolean: true, env: []string{"ETCD_" + up + "_TLS_INSECURE"}, usage: n + " etcd: skip server certificate verification", set: boolean(&s.Insecure)},
		)
	}
	for _, o := range opts {
		o.env = append(o.env, "ZONEKEEPER_MIRROR_"+strings.ToUpper(strings.ReplaceAll(o.names[0], "-", "_")))
	}
	return opts
}

// ParseArgs reads the command line (without "mirror"), then, for settings not given there, the
// environment: etcd-injector's variables (ETCD_SRC_ENDPOINTS, ETCD_DST_ENDPOINTS, ETCD_SRC_DIRECTORY,
// ETCD_DST_DIRECTORY, RULES_FILEPATH, IGNORE_KEYS, ETCD_SRC_USERNAME, …) first, then
// ZONEKEEPER_MIRROR_<FLAG>. It returns flag.ErrHelp for -h.
func ParseArgs(args []string, getenv func(string) string, output io.Writer) (Config, error) {
	c := DefaultConfig()
	opts := c.options()
	fs := flag.NewFlagSet("zonekeeper mirror", flag.ContinueOnError)
	fs.SetOutput(output)
	byName := map[string]*option{}
	for _, o := range opts {
		for _, n := range o.names {
			fs.Var(flagValue{o}, n, o.usage)
			byName[n] = o
		}
	}
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), mirrorUsage)
		for _, o := range opts {
			names := "--" + o.names[0]
			for _, a := range o.names[1:] {
				if len(a) == 1 {
					names += ", -" + a
				} else {
					names += ", --" + a
				}
			}
			fmt.Fprintf(fs.Output(), "  %s\n        %s [$%s]\n", names, o.usage, strings.Join(o.env, ", $"))
		}
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	given := map[*option]bool{}
	fs.Visit(func(f *flag.Flag) { given[byName[f.Name]] = true })
	for _, o := range opts {
		if given[o] {
			continue
		}
		for _, env := range o.env {
			v := getenv(env)
			if v == "" {
				continue
			}
			if err := (flagValue{o}).Set(v); err != nil {
				return c, fmt.Errorf("environment %s: %w", env, err)
			}
			break
		}
	}
	if c.Verbose {
		c.LogLevel = "debug"
	}
	return c, c.Validate()
}

const mirrorUsage = `Usage: zonekeeper mirror [flags]

Copies an etcd prefix to another (CoreDNS split horizon), rewriting values with etcd-injector's rules,
then follows the source with a watch (or exits after one sync with --once). etcd-injector's flags and
environment variables are accepted.

Flags:
`

// Validate checks the settings and normalises the directories. Each error names the flag.
func (c *Config) Validate() error {
	var errs []error
	if c.SrcDirectory == "" {
		errs = append(errs, errors.New("--src-directory is required (the etcd path to copy from, e.g. /skydns-internal)"))
	}
	if c.DstDirectory == "" {
		errs = append(errs, errors.New("--dst-directory is required (the etcd path to copy to, e.g. /skydns)"))
	}
	for _, s := range []Side{c.Src, c.Dst} {
		if _, err := s.scheme(); err != nil {
			errs = append(errs, err)
		}
		if (s.CertFile == "") != (s.KeyFile == "") {
			errs = append(errs, fmt.Errorf("--%s-cert-file and --%s-key-file must be set together", s.Name, s.Name))
		}
	}
	if c.MaxTxnOps < 2 {
		errs = append(errs, errors.New("--max-txn-ops must be at least 2"))
	}
	if c.ResyncInterval <= 0 {
		errs = append(errs, errors.New("--resync-interval must be positive"))
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.srcDir, c.dstDir = dirPath(c.SrcDirectory), dirPath(c.DstDirectory)
	c.normalisedIgnores = nil
	for _, p := range c.Ignore {
		if p == "" {
			continue
		}
		c.normalisedIgnores = append(c.normalisedIgnores, p)
	}
	return errors.Join(errs...)
}

// Warnings lists settings that are valid but probably not what was meant.
func (c Config) Warnings() []string {
	var out []string
	for _, p := range c.normalisedIgnores {
		if !strings.HasPrefix(p, c.srcDir) {
			out = append(out, fmt.Sprintf("--ignore=%s is not under --src-directory %s and matches nothing (ignore paths are full source keys, as in etcd-injector)", p, c.SrcDirectory))
		}
	}
	return out
}

// dirPath makes a directory path end in "/", so /skydns does not also cover /skydns-internal.
func dirPath(p string) string {
	if p == "" || strings.HasSuffix(p, "/") {
		return p
	}
	return p + "/"
}
