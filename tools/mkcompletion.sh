#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Write the bash completion of winent-stream, made from the library's
# table of options (winent_options, src/base/opttable.c: the one source) as
# tools/winent-options prints it, so an option, or a word of one, added to
# the table is completed without editing anything here. The build runs it
# (cmake/WinentShellFiles.cmake):
#
#   sh tools/mkcompletion.sh BUILD/tools/winent-options OUT
#
# Each line "--name<TAB>KIND<TAB>VALUES" (winent-options.c says what they
# are): every name is offered for `winent-stream --<TAB>`; after a name,
# its words (--ot, --range auto), file names (ending .ext for --info
# FILE.zst), or nothing for a value of the user's own (--window K).
# Anything else (the positional INPUT and OUTPUT) completes file names.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: mkcompletion.sh WINENT_OPTIONS_BINARY OUTPUT" >&2
    exit 2
fi
table=$("$1") || {
    echo "mkcompletion.sh: '$1' failed" >&2
    exit 1
}
tmp="$2.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM
printf '%s\n' "$table" | awk -F '\t' '
NF >= 2 && $1 ~ /^--[a-z0-9][a-z0-9-]*$/ {
    cnt++
    name[cnt] = $1
    kind[cnt] = $2
    arg[cnt] = $3
}
END {
    if (cnt == 0) {
        print "mkcompletion.sh: no options in the table" > "/dev/stderr"
        exit 1
    }
    print "# bash completion of winent-stream. Generated at build time from the"
    print "# library'"'"'s table of options (src/base/opttable.c) by tools/mkcompletion.sh:"
    print "# edit the table, not this file."
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
