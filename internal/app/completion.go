package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

// runCompletion is `zonekeeper completion bash|zsh|fish`: a completion script of the subcommands,
// the flags, and the values of the flags whose values are a known set (config.FlagValues). The scripts
// are static: they carry the lists of this binary, so completing runs no zonekeeper process.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	shell := ""
	if len(args) == 1 {
		shell = args[0]
	}
	d := completionData()
	switch shell {
	case "bash":
		writeBashCompletion(stdout, d)
	case "zsh":
		writeZshCompletion(stdout, d)
	case "fish":
		writeFishCompletion(stdout, d)
	default:
		fmt.Fprintln(stderr, "zonekeeper completion: name one shell: bash, zsh or fish (e.g. source <(zonekeeper completion bash))")
		return ExitError
	}
	return ExitOK
}

// completion is what every script completes.
type completion struct {
	commands []config.Command
	flags    []config.CompletionFlag
	// values are the known values of some flags, by flag name.
	values map[string][]string
	enums  []string
	groups []string
	shells []string
}

func completionData() completion {
	d := completion{
		commands: config.Commands(),
		flags:    config.CompletionFlags(),
		values:   map[string][]string{},
		enums:    config.EnumFlags(),
		groups:   config.HelpGroupNames(),
		shells:   []string{"bash", "zsh", "fish"},
	}
	for _, f := range d.enums {
		d.values[f] = config.FlagValues(f)
	}
	return d
}

func (d completion) commandNames() []string {
	var out []string
	for _, c := range d.commands {
		out = append(out, c.Name)
	}
	return out
}

func (d completion) flagNames() []string {
	var out []string
	for _, f := range d.flags {
		out = append(out, "--"+f.Name)
	}
	return out
}

func writeBashCompletion(w io.Writer, d completion) {
	fmt.Fprintf(w, `# bash completion for zonekeeper. Load it with: source <(zonekeeper completion bash)
_zonekeeper_values() {
    case "$1" in
`)
	for _, f := range d.enums {
		fmt.Fprintf(w, "        --%s) echo %s ;;\n", f, shellQuote(strings.Join(d.values[f], " ")))
	}
	fmt.Fprintf(w, `    esac
}

_zonekeeper() {
    local cur prev flag="" values cword=$COMP_CWORD
    COMPREPLY=()
    cur="${COMP_WORDS[cword]}"
    prev=""
    (( cword > 0 )) && prev="${COMP_WORDS[cword-1]}"
    # --flag=value: bash splits the word at '=' (COMP_WORDBREAKS), so the flag may be a word or two back.
    if [[ $cur == "=" ]]; then
        flag=$prev; cur=""
    elif [[ $prev == "=" ]] && (( cword > 1 )); then
        flag="${COMP_WORDS[cword-2]}"
    elif [[ $cur == --*=* ]]; then
        flag="${cur%%%%=*}"; cur="${cur#*=}"
    elif [[ $prev == -* ]]; then
        flag=$prev
    fi
    if [[ -n $flag ]]; then
        values="$(_zonekeeper_values "$flag")"
        if [[ -n $values ]]; then
            COMPREPLY=( $(compgen -W "$values" -- "$cur") )
            return 0
        fi
    fi
    local cmd=""
    (( cword > 1 )) && [[ ${COMP_WORDS[1]} != -* ]] && cmd="${COMP_WORDS[1]}"
    case "$cmd" in
        flags) (( cword == 2 )) && COMPREPLY=( $(compgen -W %s -- "$cur") ); return 0 ;;
        completion) (( cword == 2 )) && COMPREPLY=( $(compgen -W %s -- "$cur") ); return 0 ;;
        version|help) return 0 ;;
        mirror) return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W "$(_zonekeeper_flags)" -- "$cur") )
    elif (( cword == 1 )); then
        COMPREPLY=( $(compgen -W %s -- "$cur") )
    fi
}

_zonekeeper_flags() {
    echo %s
}

complete -o default -F _zonekeeper zonekeeper
`, shellQuote(strings.Join(d.groups, " ")), shellQuote(strings.Join(d.shells, " ")),
		shellQuote(strings.Join(d.commandNames(), " ")), shellQuote(strings.Join(d.flagNames(), " ")))
}

func writeZshCompletion(w io.Writer, d completion) {
	fmt.Fprintf(w, "#compdef zonekeeper\n# zsh completion for zonekeeper. Load it with: source <(zonekeeper completion zsh)\n\n_zonekeeper() {\n")
	fmt.Fprintf(w, "  local -a commands flags values\n  commands=(\n")
	for _, c := range d.commands {
		fmt.Fprintf(w, "    %s\n", shellQuote(c.Name+":"+c.Summary))
	}
	fmt.Fprintf(w, "  )\n  flags=(\n")
	for _, f := range d.flags {
		fmt.Fprintf(w, "    %s\n", shellQuote("--"+f.Name+":"+f.Description))
	}
	fmt.Fprintf(w, "  )\n")
	fmt.Fprintf(w, `  local cur=${words[CURRENT]} prev=${words[CURRENT-1]} flag=""
  if [[ $cur == --*=* ]]; then
    flag=${cur%%%%=*}
  elif [[ $prev == --* ]]; then
    flag=$prev
  fi
  case $flag in
`)
	for _, f := range d.enums {
		fmt.Fprintf(w, "    --%s) values=(%s) ;;\n", f, strings.Join(d.values[f], " "))
	}
	fmt.Fprintf(w, `  esac
  if (( ${#values} )); then
    if [[ $cur == --*=* ]]; then
      compadd -P "${flag}=" -- $values
    else
      compadd -- $values
    fi
    return
  fi
  if (( CURRENT == 3 )) && [[ ${words[2]} == flags ]]; then
    compadd -- %s
    return
  fi
  if (( CURRENT == 3 )) && [[ ${words[2]} == completion ]]; then
    compadd -- %s
    return
  fi
  if [[ $cur == -* ]]; then
    _describe -t flags 'zonekeeper flag' flags
  elif (( CURRENT == 2 )); then
    _describe -t commands 'zonekeeper command' commands
  else
    _files
  fi
}

if [[ "${funcstack[1]}" == "_zonekeeper" ]]; then
  _zonekeeper "$@"
else
  compdef _zonekeeper zonekeeper
fi
`, strings.Join(d.groups, " "), strings.Join(d.shells, " "))
}

func writeFishCompletion(w io.Writer, d completion) {
	fmt.Fprintf(w, "# fish completion for zonekeeper. Load it with: zonekeeper completion fish | source\n")
	fmt.Fprintf(w, "complete -c zonekeeper -e\n")
	for _, c := range d.commands {
		fmt.Fprintf(w, "complete -c zonekeeper -f -n __fish_use_subcommand -a %s -d %s\n", c.Name, shellQuote(c.Summary))
	}
	fmt.Fprintf(w, "complete -c zonekeeper -f -n '__fish_seen_subcommand_from flags' -a %s\n", shellQuote(strings.Join(d.groups, " ")))
	fmt.Fprintf(w, "complete -c zonekeeper -f -n '__fish_seen_subcommand_from completion' -a %s\n", shellQuote(strings.Join(d.shells, " ")))
	for _, f := range d.flags {
		line := "complete -c zonekeeper -l " + f.Name
		if v := d.values[f.Name]; len(v) > 0 {
			line += " -x -a " + shellQuote(strings.Join(v, " "))
		} else if !f.Bool {
			line += " -r"
		}
		fmt.Fprintf(w, "%s -d %s\n", line, shellQuote(f.Description))
	}
}

// shellQuote quotes s for bash, zsh and fish alike: single quotes, a quote inside closed and
// reopened around an escaped one (fish reads '\” the same way).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
