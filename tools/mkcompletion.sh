#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Write the bash completion of winent-stream, made from its --help, which
# prints the library's table of options (winent_options, src/base/opttable.c:
# the one source), so an option added there is completed without editing
# anything here. The build runs it (cmake/WinentShellFiles.cmake):
#
#   sh tools/mkcompletion.sh BUILD/src/winent-stream OUT
#
# What it reads in the help, for each line "  --name ARG   description"
# (continued on lines indented deeper):
#   - every long option name, for `winent-stream --<TAB>`;
#   - ARG alternatives written a|b|c in lower case (--base 2|e|10): those;
#   - ARG one word in lower case (--range auto): that word;
#   - ARG a metavariable (--dtype T) whose description lists the values,
#     "a, b or c" or "a, b, c, or ..." (parenthesised text left out): those;
#   - ARG FILE or FILE.ext (--info FILE.zst): file names (ending .ext);
#   - any other ARG (--window K): a value, nothing offered.
# An option on several lines (--range LO:HI and --range auto) is offered
# once, with the words of all its lines. Anything else (the positional
# INPUT and OUTPUT) completes file names.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: mkcompletion.sh WINENT_STREAM_BINARY OUTPUT" >&2
    exit 2
fi
help=$("$1" --help) || {
    echo "mkcompletion.sh: '$1 --help' failed" >&2
    exit 1
}
tmp="$2.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM
printf '%s\n' "$help" | awk '
# Parsed options: name[i], kind[i] (flag, words, file, value), arg[i].
function flush(   spec, desc, cut, items, n, k, a, sp) {
    if (cur == "")
        return
    # "--name ARG[, --other ARG]" and the description after two spaces
    spec = cur
    desc = ""
    cut = index(spec, "  ")
    if (cut > 0) {
        desc = substr(spec, cut + 2)
        spec = substr(spec, 1, cut - 1)
    }
    desc = desc " " more
    n = split(spec, items, ", ")
    for (k = 1; k <= n; k++) {
        a = items[k]
        sp = index(a, " ")
        if (sp == 0) {
            add(a, "flag", "")
            continue
        }
        classify(substr(a, 1, sp - 1), substr(a, sp + 1), desc)
    }
    cur = ""
    more = ""
}
function add(nm, kd, ar,   i) {
    if (nm !~ /^--[a-z0-9][a-z0-9-]*$/)
        return
    # An option on several lines (--range LO:HI, then --range auto) is
    # offered once; the values its lines list are put together.
    for (i = 1; i <= cnt; i++)
        if (name[i] == nm) {
            if (kd == "words")
                arg[i] = (kind[i] == "words" ? arg[i] " " : "") ar
            if (kd == "words" || kind[i] == "flag")
                kind[i] = kd
            return
        }
    cnt++
    name[cnt] = nm
    kind[cnt] = kd
    arg[cnt] = ar
}
function literal(w) {
    return w ~ /^[a-z0-9][a-z0-9._-]*$/
}
function classify(nm, a, desc,   alts, n, k, ok, words) {
    if (index(a, "|") > 0) {
        n = split(a, alts, "|")
        ok = 1
        words = ""
        for (k = 1; k <= n; k++) {
            if (!literal(alts[k]))
                ok = 0
            words = words (k > 1 ? " " : "") alts[k]
        }
        add(nm, ok ? "words" : "value", ok ? words : "")
        return
    }
    if (a ~ /^FILE/) {
        add(nm, "file", substr(a, 5))
        return
    }
    # A value written out in lower case (--range auto): that word.
    if (literal(a)) {
        add(nm, "words", a)
        return
    }
    words = listed(desc)
    add(nm, words != "" ? "words" : "value", words)
}
# The first list of values in a description: "a, b or c", "a or b", or
# "a, b, c, or something else" (then a, b and c).
function listed(d,   t, n, i, j, got, w, ws) {
    # parenthesised asides out (innermost first), spacing made plain
    while (gsub(/\([^()]*\)/, "", d) > 0)
        ;
    gsub(/[ \t]+/, " ", d)
    gsub(/ ,/, ",", d)
    n = split(d, t, " ")
    for (i = 1; i <= n; i++) {
        got = ""
        for (j = i; j <= n && t[j] ~ /,$/ && literal(substr(t[j], 1, length(t[j]) - 1)); j++)
            got = got " " substr(t[j], 1, length(t[j]) - 1)
        # "... b or c" closing the list (or "a or b" alone)
        if (j + 2 <= n + 0 && literal(t[j]) && t[j + 1] == "or") {
            w = t[j + 2]
            sub(/[.;:]$/, "", w)
            if (literal(w) && (j + 2 == n || t[j + 2] ~ /[.;:]$/))
                return substr(got " " t[j] " " w, 2)
        }
        # "a, b, c, or a list ...": the words before ", or"
        if (j <= n && t[j] == "or" && split(got, ws, " ") >= 2)
            return substr(got, 2)
    }
    return ""
}
/^-/ || /^ -/ || /^  -/ || /^   -/ || /^    -/ { flush(); cur = $0; sub(/^ +/, "", cur); next }
/^      / && cur != "" { more = more " " $0; next }
{ flush() }
END {
    flush()
    if (cnt == 0) {
        print "mkcompletion.sh: no options found in --help" > "/dev/stderr"
        exit 1
    }
    print "# bash completion of winent-stream. Generated at build time from"
    print "# `winent-stream --help` by tools/mkcompletion.sh: edit the help text in"
    print "# src/cli/options.c, not this file."
    print ""
    print "# _winent_stream_files PATTERN: file names matching PATTERN (every file"
    print "# when empty) and folders, for the word being completed."
    print "_winent_stream_files()"
    print "{"
    print "    compopt -o filenames 2>/dev/null"
    print "    if [ -n \"$1\" ]; then"
    print "        mapfile -t COMPREPLY < <(compgen -f -X \"!$1\" -- \"$cur\"; compgen -d -- \"$cur\")"
    print "    else"
    print "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")"
    print "    fi"
    print "}"
    print ""
    print "_winent_stream()"
    print "{"
    print "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\""
    print "    [ \"$COMP_CWORD\" -gt 0 ] && prev=\"${COMP_WORDS[COMP_CWORD - 1]}\""
    print "    # --name=value: bash splits the word at = (COMP_WORDBREAKS) or not"
    print "    if [ \"$cur\" = \"=\" ]; then"
    print "        cur=\"\""
    print "    elif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -gt 1 ]; then"
    print "        prev=\"${COMP_WORDS[COMP_CWORD - 2]}\""
    print "    elif [[ $cur == --*=* ]]; then"
    print "        prev=\"${cur%%=*}\""
    print "        cur=\"${cur#*=}\""
    print "    fi"
    print "    COMPREPLY=()"
    print "    case $prev in"
    values = ""
    for (i = 1; i <= cnt; i++) {
        if (kind[i] == "words")
            printf "    %s) mapfile -t COMPREPLY < <(compgen -W '\''%s'\'' -- \"$cur\"); return 0 ;;\n", name[i], arg[i]
        else if (kind[i] == "file")
            printf "    %s) _winent_stream_files '\''%s'\''; return 0 ;;\n", name[i], arg[i] == "" ? "" : "*" arg[i]
        else if (kind[i] == "value")
            values = values (values == "" ? "" : "|") name[i]
    }
    if (values != "")
        printf "    %s) return 0 ;; # a value of the user'\''s own\n", values
    print "    esac"
    all = ""
    for (i = 1; i <= cnt; i++)
        all = all (i > 1 ? " " : "") name[i]
    print "    if [[ $cur == -?* ]]; then"
    printf "        mapfile -t COMPREPLY < <(compgen -W '\''%s'\'' -- \"$cur\")\n", all
    print "        return 0"
    print "    fi"
    print "    _winent_stream_files \"\""
    print "}"
    print "complete -F _winent_stream winent-stream"
}' >"$tmp"
mv "$tmp" "$2"
trap - EXIT INT TERM
