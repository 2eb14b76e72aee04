/// bash, zsh and fish completion scripts generated from the specs. Commands, subcommands, flags
/// and choices are written into the script; provider values come from `sxk __complete WORDS…`.
public enum CompletionScript {
    public enum Shell: String, Sendable, CaseIterable {
        case bash, zsh, fish
        /// The file name used under `completions/`.
        public var fileName: String {
            switch self {
            case .bash: return "sxk.bash"
            case .zsh: return "_sxk"
            case .fish: return "sxk.fish"
            }
        }
    }

    public static func generate(for shell: Shell, specs: [CommandSpec], programName: String = "sxk") -> String {
        let nodes = Node.all(specs)
        switch shell {
        case .bash: return script(bash(specs: specs, program: programName), nodes: nodes, specs: specs)
        case .zsh: return script(zsh(specs: specs, program: programName), nodes: nodes, specs: specs)
        case .fish: return script(fish(specs: specs, program: programName), nodes: nodes, specs: specs)
        }
    }

    /// What one shell writes for each part of the script. Every script has the same parts in the
    /// same order: the prelude (skip the global options, take the command word), the alias map, the
    /// walk down to the subcommand path, then what each path completes.
    struct Layout {
        /// Up to the command word held in `cmdpath`.
        var prelude: String
        var aliasOpen: String
        var alias: (_ alias: String, _ name: String) -> String
        var aliasClose: String
        /// The walk over the words after the command, up to where the subcommand paths are matched.
        var walkOpen: String
        var subPaths: ([String]) -> String
        /// The end of the walk, and whatever comes before the paths' own completions.
        var walkClose: String
        var node: (Node) -> String
        var epilogue: String
    }

    static func script(_ layout: Layout, nodes: [Node], specs: [CommandSpec]) -> String {
        var s = layout.prelude
        let aliasPairs = aliases(specs)
        if !aliasPairs.isEmpty {
            s += layout.aliasOpen
            for (alias, name) in aliasPairs { s += layout.alias(alias, name) }
            s += layout.aliasClose
        }
        let subPaths = nodes.filter { $0.path.contains(" ") }.map(\.path)
        s += layout.walkOpen
        if !subPaths.isEmpty { s += layout.subPaths(subPaths) }
        s += layout.walkClose
        for node in nodes { s += layout.node(node) }
        return s + layout.epilogue
    }

    /// bash and zsh spell the alias map and a path's arm of `case "$cmdpath" in` alike.
    static let caseAliasOpen = "    case \"$cmdpath\" in\n"
    static func caseAlias(_ alias: String, _ name: String) -> String { "        \(sq(alias))) cmdpath=\(sq(name)) ;;\n" }
    static let caseAliasClose = "    esac\n"

    /// One arm of `case "$cmdpath" in`: a passed-on command completes from `__complete` alone; else
    /// the value flags, then flags after `-`, then the first argument or the subcommands.
    static func caseArm(_ node: Node, program: String, action: (ValueKind) -> String, flags: String, rest: String?) -> String {
        var s = "        \(sq(node.path)))\n"
        if node.spec.passesCommand {
            // Flags, the inner command and its own words all come from `__complete`.
            return s + "            _\(program)_dynamic\n            ;;\n"
        }
        s += valueFlagCase(node.flags, action: action)
        s += flags
        if let rest { s += "            " + rest + "\n" }
        return s + "            ;;\n"
    }

    /// A command path (`stats daily`) with what can follow it.
    struct Node {
        var path: String
        var spec: CommandSpec
        var flags: [FlagSpec]

        static func all(_ specs: [CommandSpec]) -> [Node] {
            var out: [Node] = []
            func walk(_ spec: CommandSpec, path: String, inherited: [FlagSpec]) {
                let flags = spec.flags + inherited.filter { f in !spec.flags.contains { $0.name == f.name } }
                out.append(Node(path: path, spec: spec, flags: flags))
                for sub in spec.subcommands where !sub.isHidden { walk(sub, path: path + " " + sub.name, inherited: flags) }
            }
            for spec in specs where !spec.isHidden { walk(spec, path: spec.name, inherited: []) }
            return out
        }

        var subcommandNames: [String] { spec.subcommands.filter { !$0.isHidden }.map(\.name) }
        var firstArgument: ArgumentSpec? { spec.arguments.first }

        /// Whether the words at each position are sxk's own completion's to give: a fixed list at one
        /// position, or arguments whose kinds differ by position (`let NAME = COMMAND…`). A file path
        /// as the first argument stays the shell's.
        var positionsAreSxks: Bool {
            guard let first = firstArgument else { return false }
            if case .path = first.kind { return false }
            if case .choice = first.kind { return true }
            return spec.arguments.count > 1 && spec.arguments.dropFirst().contains { if case .provider = $0.kind { true } else { false } }
        }
    }

    /// `case "$prev" in --flag|-f) ACTION return ;; esac` for the flags that take a value (bash and zsh
    /// share the syntax; only the action differs). Empty when no flag takes a value.
    static func valueFlagCase(_ flags: [FlagSpec], action: (ValueKind) -> String) -> String {
        let valueFlags = flags.filter { !$0.isSwitch }
        guard !valueFlags.isEmpty else { return "" }
        var s = "            case \"$prev\" in\n"
        for f in valueFlags {
            let names = (["--" + f.name] + (f.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
            s += "                \(names)) \(action(f.value!)) return ;;\n"
        }
        return s + "            esac\n"
    }

    static func sq(_ s: String) -> String { "'" + s.replacingAll("'", with: "'\\''") + "'" }

    /// The global options whose value is one of a list (`--env`), completed from it.
    static var globalChoices: [(flag: String, choices: [String])] {
        GlobalOptions.flags.compactMap { f in
            guard case .choice(let choices)? = f.value else { return nil }
            return ("--" + f.name, choices)
        }
    }

    /// The global options whose value is a file or folder (`--state-dir`, `--har`, `--cacert`).
    static var globalPathFlags: [String] {
        GlobalOptions.flags.filter { if case .path? = $0.value { return true } else { return false } }.map { "--" + $0.name }
    }

    static var globalValueFlags: [String] { GlobalOptions.flags.filter { !$0.isSwitch }.map { "--" + $0.name } + ["-c"] }

    /// Alias → name pairs for every top-level command.
    static func aliases(_ specs: [CommandSpec]) -> [(String, String)] {
        specs.filter { !$0.isHidden }.flatMap { s in s.aliases.map { ($0, s.name) } }
    }

    // MARK: bash

    static func bash(specs: [CommandSpec], program: String) -> Layout {
        let commands = specs.filter { !$0.isHidden }.flatMap { [$0.name] + $0.aliases }
        let prelude = """
        # bash completion for \(program) — generated by `\(program) completion bash`; do not edit.
        # bash splits words at ':' and '=' (COMP_WORDBREAKS): `role:p` arrives as `role` `:` `p`. The
        # words are joined back as typed, and each answer keeps only what follows the last ':' or '='.
        # Only words with no space between them in the line are joined (`let x = or` stays apart).
        _\(program)_words() {
            local k w glued rest="${COMP_LINE:0:COMP_POINT}"
            _\(program)_w=()
            for ((k = 0; k <= COMP_CWORD; k++)); do
                w="${COMP_WORDS[k]}"
                glued=1
                if [[ "$rest" =~ ^[[:space:]]+ ]]; then glued=0; rest="${rest:${#BASH_REMATCH[0]}}"; fi
                rest="${rest#"$w"}"
                if [[ $k -gt 1 && $glued -eq 1 && ( "$w" == ":" || "$w" == "=" || "${_\(program)_w[-1]}" == *[:=] ) ]]; then
                    _\(program)_w[-1]+="$w"
                else
                    _\(program)_w+=("$w")
                fi
            done
        }

        # Files (-f) or folders (-d), one a line, inserted as bash quotes file names.
        _\(program)_paths() {
            local IFS=$'\\n'
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen "$1" -- "$cur"))
        }

        _\(program)_dynamic() {
            local line head base last q=""
            _\(program)_words
            # The word being completed as sxk reads it: its opening quote (when still open) and escapes taken off.
            last="${_\(program)_w[-1]}"
            # The quote still open at the word's end, read as bash reads it (a backslash escapes outside '…').
            local i c
            for (( i = 0; i < ${#last}; i++ )); do
                c="${last:i:1}"
                if [[ "$q" == "'" ]]; then
                    [[ "$c" == "'" ]] && q=""
                elif [[ "$c" == "\\\\" ]]; then
                    i=$((i + 1))
                elif [[ -n "$q" ]]; then
                    [[ "$c" == '"' ]] && q=""
                elif [[ "$c" == "'" || "$c" == '"' ]]; then
                    q="$c"
                fi
            done
            last="${last#[\\'\\"]}"
            last="${last//\\\\/}"
            head="${_\(program)_w[-1]}"
            base="${head%[:=]*}"
            [[ "$head" == *[:=]* ]] && head="${head:0:${#base}+1}" || head=""
            while IFS= read -r line; do
                line="${line%%$'\\t'*}"
                line="${line#"$head"}"
                # A value with a space or a quote (a store's name) is inserted escaped, as one word;
                # inside the quote its word opened, escaped as that quote needs.
                if [[ "$q" == "'" ]]; then
                    line="${line//\\'/\\'\\\\\\'\\'}"
                elif [[ "$q" == '"' ]]; then
                    line="${line//\\\\/\\\\\\\\}"; line="${line//\\$/\\\\\\$}"; line="${line//\\`/\\\\\\`}"; line="${line//\\"/\\\\\\"}"
                elif [[ ! "$line" =~ ^[[:alnum:]_./:=@%+,~-]*$ ]]; then
                    printf -v line '%q' "$line"
                fi
                COMPREPLY+=("$line")
            done < <(\(program) __complete -- "${_\(program)_w[@]:1:${#_\(program)_w[@]}-2}" "$last" 2>/dev/null)
            # A folder alone stays open, so Tab goes on inside it.
            [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == */ ]] && compopt -o nospace 2>/dev/null
        }

        _\(program)() {
            local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
            local i=1 cmdpath w
            COMPREPLY=()
            # A line bash split at ':' or '=' (a value `role:p`, a URL, `--status=com`) is completed by sxk itself.
            _\(program)_words
            if [[ ${#_\(program)_w[@]} -ne $((COMP_CWORD + 1)) ]]; then _\(program)_dynamic; return; fi
            while [[ $i -lt $COMP_CWORD ]]; do
                w="${COMP_WORDS[i]}"
                case "$w" in
                    \(globalValueFlags.joined(separator: "|"))) i=$((i+2)) ;;
                    -*) i=$((i+1)) ;;
                    *) break ;;
                esac
            done
            if [[ $i -ge $COMP_CWORD ]]; then
                case "$prev" in
                    --state-dir) _\(program)_paths -d; return ;;
                    \(globalPathFlags.filter { $0 != "--state-dir" }.joined(separator: "|"))) _\(program)_paths -f; return ;;
        \(globalChoices.map { "            \($0.flag)) COMPREPLY=($(compgen -W \(sq($0.choices.joined(separator: " "))) -- \"$cur\")); return ;;\n" }.joined())\
                    \(globalValueFlags.filter { !globalPathFlags.contains($0) }.joined(separator: "|"))) [[ $i -gt $COMP_CWORD ]] && return ;;
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W \(sq((globalValueFlags + GlobalOptions.flags.filter(\.isSwitch).map { "--" + $0.name }).sorted().joined(separator: " "))) -- "$cur"))
                else
                    COMPREPLY=($(compgen -W \(sq(commands.joined(separator: " "))) -- "$cur"))
                fi
                return
            fi
            cmdpath="${COMP_WORDS[i]}"
            i=$((i+1))

        """
        let walkOpen = """
            while [[ $i -lt $COMP_CWORD ]]; do
                w="${COMP_WORDS[i]}"
                case "$cmdpath $w" in

        """
        let walkClose = """
                    *) [[ "$w" != -* ]] && break ;;
                esac
                i=$((i+1))
            done
            case "$cmdpath" in

        """
        let epilogue = """
            esac
        }
        complete -F _\(program) \(program)

        """
        return Layout(
            prelude: prelude, aliasOpen: caseAliasOpen, alias: caseAlias, aliasClose: caseAliasClose, walkOpen: walkOpen,
            subPaths: { "            " + $0.map(sq).joined(separator: "|") + ") cmdpath=\"$cmdpath $w\" ;;\n" },
            walkClose: walkClose,
            node: { node in
                let flagWords = (node.flags.map { "--" + $0.name } + ["--help"]).joined(separator: " ")
                let subs = node.subcommandNames
                var rest: String?
                if node.positionsAreSxks {
                    // A fixed list at one position only: sxk's own completion knows the position
                    // (`set format <Tab>`, `trace on <Tab>`), and gives the subcommands with it.
                    rest = "_\(program)_dynamic;"
                } else if let arg = node.firstArgument {
                    rest = bashAction(arg.kind, program: program, words: subs)
                } else if !subs.isEmpty {
                    rest = "COMPREPLY=($(compgen -W \(sq(subs.joined(separator: " "))) -- \"$cur\"))"
                }
                return caseArm(node, program: program, action: { bashAction($0, program: program, words: nil) },
                               flags: "            if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \(sq(flagWords)) -- \"$cur\")); return; fi\n",
                               rest: rest)
            },
            epilogue: epilogue)
    }

    static func bashAction(_ kind: ValueKind, program: String, words: [String]?) -> String {
        let extra = words ?? []
        switch kind {
        case .choice(let choices):
            return "COMPREPLY=($(compgen -W \(sq((extra + choices).joined(separator: " "))) -- \"$cur\"));"
        case .provider:
            let pre = extra.isEmpty ? "" : "COMPREPLY=($(compgen -W \(sq(extra.joined(separator: " "))) -- \"$cur\")); "
            return pre + "_\(program)_dynamic;"
        case .path:
            return "_\(program)_paths -f;"
        default:
            return extra.isEmpty ? ":;" : "COMPREPLY=($(compgen -W \(sq(extra.joined(separator: " "))) -- \"$cur\"));"
        }
    }

    // MARK: zsh

    static func zq(_ value: String, _ description: String) -> String {
        sq(value.replacingAll(":", with: "\\:") + ":" + description)
    }

    static func zsh(specs: [CommandSpec], program: String) -> Layout {
        let commandItems = specs.filter { !$0.isHidden }.flatMap { s in ([s.name] + s.aliases).map { zq($0, s.summary) } }
        let globalItems = GlobalOptions.flags.map { zq("--" + $0.name, $0.summary) } + [zq("-c", "Run commands and exit")]
        let prelude = """
        #compdef \(program)
        # zsh completion for \(program) — generated by `\(program) completion zsh`; do not edit.

        _\(program)_dynamic() {
            local -a lines items
            local line
            lines=("${(@f)$(\(program) __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
            for line in "${lines[@]}"; do
                [[ -z "$line" ]] && continue
                if [[ "$line" == *$'\\t'* ]]; then
                    items+=("${${line%%$'\\t'*}//:/\\\\:}:${line#*$'\\t'}")
                else
                    items+=("${line//:/\\\\:}")
                fi
            done
            (( ${#items} )) && _describe -t values 'value' items
        }

        _\(program)() {
            local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"
            local i=2 cmdpath w
            local -a items
            # `--flag=val`: the value after '=' is completed by sxk itself.
            if [[ "$cur" == --*=* ]]; then compset -P '*='; _\(program)_dynamic; return; fi
            while (( i < CURRENT )); do
                w="${words[i]}"
                case "$w" in
                    \(globalValueFlags.joined(separator: "|"))) (( i += 2 )) ;;
                    -*) (( i += 1 )) ;;
                    *) break ;;
                esac
            done
            if (( i >= CURRENT )); then
                case "$prev" in
                    --state-dir) _directories; return ;;
                    \(globalPathFlags.filter { $0 != "--state-dir" }.joined(separator: "|"))) _files; return ;;
        \(globalChoices.map { "            \($0.flag)) compadd -- \($0.choices.map(sq).joined(separator: " ")); return ;;\n" }.joined())\
                    \(globalValueFlags.filter { !globalPathFlags.contains($0) }.joined(separator: "|"))) (( i > CURRENT )) && return ;;
                esac
                if [[ "$cur" == -* ]]; then
                    items=(\(globalItems.joined(separator: " ")))
                    _describe -t options 'option' items
                else
                    items=(\(commandItems.joined(separator: " ")))
                    _describe -t commands 'command' items
                fi
                return
            fi
            cmdpath="${words[i]}"
            (( i += 1 ))

        """
        let walkOpen = """
            while (( i < CURRENT )); do
                w="${words[i]}"
                case "$cmdpath $w" in

        """
        let walkClose = """
                    (*) [[ "$w" != -* ]] && break ;;
                esac
                (( i += 1 ))
            done
            case "$cmdpath" in

        """
        let epilogue = """
            esac
        }

        _\(program) "$@"

        """
        return Layout(
            prelude: prelude, aliasOpen: caseAliasOpen, alias: caseAlias, aliasClose: caseAliasClose, walkOpen: walkOpen,
            subPaths: { "            " + $0.map { "(" + sq($0) + ")" }.joined(separator: "|") + ") cmdpath=\"$cmdpath $w\" ;;\n" },
            walkClose: walkClose,
            node: { node in
                let flagItems = node.flags.map { zq("--" + $0.name, $0.summary) } + [zq("--help", "Show help for this command")]
                let subs = node.spec.subcommands.filter { !$0.isHidden }.map { zq($0.name, $0.summary) }
                var rest: String?
                if node.positionsAreSxks {
                    // As in bash: the position decides, which sxk's own completion knows.
                    rest = "_\(program)_dynamic;"
                } else if let arg = node.firstArgument {
                    rest = zshAction(arg.kind, program: program, subs: subs)
                } else if !subs.isEmpty {
                    rest = "items=(\(subs.joined(separator: " "))); _describe -t commands 'subcommand' items"
                }
                return caseArm(node, program: program, action: { zshAction($0, program: program, subs: []) },
                               flags: "            if [[ \"$cur\" == -* ]]; then items=(\(flagItems.joined(separator: " "))); _describe -t options 'option' items; return; fi\n",
                               rest: rest)
            },
            epilogue: epilogue)
    }

    static func zshAction(_ kind: ValueKind, program: String, subs: [String]) -> String {
        let pre = subs.isEmpty ? "" : "items=(\(subs.joined(separator: " "))); _describe -t commands 'subcommand' items; "
        switch kind {
        case .choice(let choices):
            return pre + "compadd -- \(choices.map(sq).joined(separator: " "));"
        case .provider:
            return pre + "_\(program)_dynamic;"
        case .path:
            return pre + "_files;"
        default:
            return pre.isEmpty ? ":;" : pre
        }
    }

    // MARK: fish

    static func fish(specs: [CommandSpec], program: String) -> Layout {
        let p = program
        let prelude = """
        # fish completion for \(p) — generated by `\(p) completion fish`; do not edit.
        function __\(p)_path
            set -l tokens (commandline -opc)
            set -e tokens[1]
            set -l n (count $tokens)
            set -l i 1
            while test $i -le $n
                switch $tokens[$i]
                    case \(globalValueFlags.joined(separator: " "))
                        set i (math $i + 2)
                    case '-*'
                        set i (math $i + 1)
                    case '*'
                        break
                end
            end
            if test $i -gt $n
                return
            end
            set -l cmdpath $tokens[$i]

        """
        let walkOpen = """
            set i (math $i + 1)
            while test $i -le $n
                set -l w $tokens[$i]
                switch "$cmdpath $w"

        """
        var walkClose = """
                    case '*'
                        if not string match -q -- '-*' $w
                            break
                        end
                end
                set i (math $i + 1)
            end
            echo $cmdpath
        end

        function __\(p)_at
            set -l cmdpath (__\(p)_path)
            test "$cmdpath" = "$argv[1]"
        end

        function __\(p)_dynamic
            set -l tokens (commandline -opc)
            set -e tokens[1]
            \(p) __complete -- $tokens (commandline -ct) 2>/dev/null
        end

        complete -c \(p) -f

        """
        // fish declares the global options and the commands before each path's own completions.
        for f in GlobalOptions.flags {
            // The state folder takes folders only, as in bash and zsh.
            let value = f.name == "state-dir" ? " -x -a '(__fish_complete_directories (commandline -ct))'" : f.value.map { fishValue($0, program: p) } ?? ""
            walkClose += "complete -c \(p) -n '__\(p)_at \"\"' -l \(f.name)\(f.short.map { " -s \($0)" } ?? "")\(value) -d \(sq(f.summary))\n"
        }
        walkClose += "complete -c \(p) -n '__\(p)_at \"\"' -s c -x -d 'Run commands and exit'\n"
        for spec in specs where !spec.isHidden {
            for name in [spec.name] + spec.aliases {
                walkClose += "complete -c \(p) -n '__\(p)_at \"\"' -a \(sq(name)) -d \(sq(spec.summary))\n"
            }
        }
        return Layout(
            prelude: prelude, aliasOpen: "    switch $cmdpath\n",
            alias: { "        case \(sq($0))\n            set cmdpath \(sq($1))\n" }, aliasClose: "    end\n", walkOpen: walkOpen,
            subPaths: { "            case \($0.map(sq).joined(separator: " "))\n                set cmdpath \"$cmdpath $w\"\n" },
            walkClose: walkClose,
            node: { node in fishNode(node, program: p) },
            epilogue: "")
    }

    /// The `complete` lines of one path: its subcommands, flags and first argument.
    static func fishNode(_ node: Node, program p: String) -> String {
        var s = ""
        let cond = "-n " + sq("__\(p)_at " + sq(node.path).replacingAll("'", with: "\""))
        if node.spec.passesCommand { return "complete -c \(p) \(cond) -a '(__\(p)_dynamic)'\n" }
        for sub in node.spec.subcommands where !sub.isHidden {
            s += "complete -c \(p) \(cond) -a \(sq(sub.name)) -d \(sq(sub.summary))\n"
        }
        for f in node.flags {
            var line = "complete -c \(p) \(cond) -l \(f.name)"
            if let short = f.short { line += " -s \(short)" }
            if let kind = f.value { line += fishValue(kind, program: p) }
            s += line + " -d \(sq(f.summary))\n"
        }
        // Every command takes --help, as bash's and zsh's scripts offer it.
        if !node.flags.contains(where: { $0.name == "help" }) {
            s += "complete -c \(p) \(cond) -l help -d 'Show help for this command'\n"
        }
        if let arg = node.firstArgument {
            switch arg.kind {
            // A fixed list belongs to one position: sxk's own completion knows which.
            case _ where node.positionsAreSxks: s += "complete -c \(p) \(cond) -a '(__\(p)_dynamic)'\n"
            case .provider: s += "complete -c \(p) \(cond) -a '(__\(p)_dynamic)'\n"
            case .path: s += "complete -c \(p) \(cond) -F\n"
            default: break
            }
        }
        return s
    }

    static func fishValue(_ kind: ValueKind, program: String) -> String {
        switch kind {
        case .choice(let choices): return " -x -a \(sq(choices.joined(separator: " ")))"
        case .provider: return " -x -a '(__\(program)_dynamic)'"
        case .path: return " -r -F"
        default: return " -x"
        }
    }
}
