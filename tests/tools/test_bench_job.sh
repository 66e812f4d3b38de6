#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tools/bench-job.sh end to end on tiny images: every job runs, the table
# has a row per job and engine, the engines wrote the same bytes, the CSV
# and JSON are written; the stage columns come from `winent-bench stage`
# (here a stand-in that prints fixed figures, so the columns are checked).
. "$WINENT_SRC/tests/lib/cli_lib.sh"

# A build folder of links, with a winent-bench whose `stage` prints one JSON
# line as the real one will: decode 0.011 s, compute 0.022 s, encode 0.033 s.
mkdir -p "$T/b/src" "$T/b/tools"
ln -s "$WS" "$T/b/src/winent-stream"
ln -s "$MK" "$T/b/tools/winent-mksample"
cat >"$T/b/tools/winent-bench" <<'SH'
#!/bin/sh
[ "$1" = stage ] || exit 2
case $2 in
--help) echo "usage: winent-bench stage decode|compute|encode [options] INPUT OUTPUT"; exit 0 ;;
decode) w=0.011 ;;
compute) w=0.022 ;;
encode) w=0.033 ;;
*) exit 2 ;;
esac
printf '{"wall_s":%s,"setup_s":0.001,"pixels":1,"bytes_in":1,"bytes_out":1,"engine":"cpu","chunk_rows":1,"chunks":1,"stages":{}}\n' $w
SH
chmod +x "$T/b/tools/winent-bench"

sh "$WINENT_SRC/tools/bench-job.sh" --build "$T/b" --scale 0.005 --repeat 1 \
    --engines cpu,auto --threads 2 --out "$T/o" --work "$T/w" --shm "$T" \
    >"$T/table.md" 2>"$T/progress" || bad "bench-job.sh exited $?: $(tail -5 "$T/progress")"
rows=$(grep -c '^| J[1-6] | ' "$T/table.md")
check "a row per job and engine (12, got $rows)" [ "$rows" -eq 12 ]
check "every job: same bytes on both engines" \
    [ "$(grep -c 'same bytes on every engine: yes$' "$T/table.md")" -eq 6 ]
check "stage columns from winent-bench stage (decode, compute, encode)" \
    grep -q '^| J2 | cpu[^|]* | [0-9.]* | 0\.01 | 0\.02 | 0\.03 | [0-9.]* |' "$T/table.md"
check "the end past the job's clock, beside its setup" grep -q '| setup s | end s | startup' "$T/table.md"
check "setup and end: seconds within the job wall" awk -F'|' '
    /^\| J[1-6] \| cpu/ { n++; w = $4 + 0; su = $9 + 0; e = $10 + 0
        if ($9 !~ /^ [0-9.]+ $/ || $10 !~ /^ -?[0-9.]+ $/ || su + e > w + 0.02 || e < -0.02) bad++ }
    END { exit !(n >= 6 && bad == 0) }' "$T/table.md"
check "no n/a stage when the stages ran" sh -c "! grep -q '^| J[1-6] | cpu[^|]* | [0-9.]* | n/a' '$T/table.md'"
check "efficiency and the bounding stage" \
    grep -q '^| J6 | cpu[^|]* |.* | [0-9.]* | \(decode\|compute\|encode\|write\) | ' "$T/table.md"
check "CSV: a header and 12 rows" [ "$(wc -l <"$T/o/bench-job.csv")" -eq 13 ]
check "JSON holds the runs" "$PY" -c "
import json, sys
d = json.load(open('$T/o/bench-job.json'))
sys.exit(0 if len(d['jobs']) == 6 and len(d['runs']) > 50 else 1)"
check "the table is also in bench-job.md" cmp -s "$T/table.md" "$T/o/bench-job.md"
check "inputs kept in --work for the next run" sh -c "ls '$T/w/in/'J1-*.tif >/dev/null"

# The build's own winent-bench: the stages where it has them, else n/a.
# A GPU engine on a machine without one is skipped, not failed.
sh "$WINENT_SRC/tools/bench-job.sh" --build "$WINENT_BIN/.." --jobs J2,J5 --scale 0.005 \
    --repeat 1 --engines cpu,0 --threads 2 --out "$T/o2" --shm "$T" \
    >"$T/table2.md" 2>"$T/progress2" || bad "bench-job.sh (J2, J5) exited $?"
check "J2 and J5 on the CPU" [ "$(grep -c '^| J[25] | cpu[^|]* | [0-9]' "$T/table2.md")" -eq 2 ]
if ! command -v nvidia-smi >/dev/null 2>&1; then
    check "no GPU: engine 0 skipped" [ "$(grep -c '^| J[25] | 0 | skipped: no GPU' "$T/table2.md")" -eq 2 ]
fi

finish
