#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The table of components of doc/architecture.md (from "## Components" to
# the next "## ") is true to the tree, both ways:
# - every file of include/shmtrace, libtrace, preload, common, support,
#   sessiond, consumerd, libreader, tools, python, completion, scripts,
#   bench and doc (the files git tracks; outside a git checkout, the files
#   found there) is named, in backticks, in the row of its directory (the
#   row of the deepest directory above it that has one): x.c as `x.c` or
#   `x.[ch]`, x.h as `x.h` or `x.[ch]`, any other file by its name;
# - every `x.c`, `x.h` or `x.[ch]` that the rows of the code directories
#   (include/shmtrace, libtrace, preload, common, support, sessiond,
#   consumerd, libreader, tools and its programs) name exists in that
#   directory (a name with a '/' is from the top of the tree), so that the
#   table follows the files that move.
set -euo pipefail
: "${top_srcdir:?run through make check}"
doc=doc/architecture.md
dirs="include/shmtrace libtrace preload common support sessiond consumerd libreader tools python completion scripts bench doc"
code_rows="include/shmtrace libtrace preload common support sessiond consumerd libreader tools tools/tracectl tools/trace-read"
cd "$top_srcdir"
[ -f "$doc" ] || { echo "FAIL: no $doc"; exit 1; }

table=$(awk '/^## Components[[:space:]]*$/ { on = 1; next } on && /^## / { exit } on' "$doc")
[ -n "$table" ] || { echo "FAIL: $doc has no \"## Components\" section"; exit 1; }

# The words in backticks of each row, one per line, by the row's directory.
declare -A words
while IFS= read -r line; do
	[[ $line =~ ^\|\ \`([^\`]+)/\`\ \| ]] || continue
	words[${BASH_REMATCH[1]}]+=$(grep -o '`[^`]*`' <<<"$line" | tr -d '`')$'\n'
done <<<"$table"
[ "${#words[@]}" -gt 0 ] || { echo "FAIL: no row in the Components table of $doc"; exit 1; }

# The files: tracked by git, or found (without what a build in the tree
# leaves there, nor a file made from its .in).
existing=()
for d in $dirs; do [ -d "$d" ] && existing+=("$d"); done
[ "${#existing[@]}" -gt 0 ] || { echo "FAIL: none of $dirs in $top_srcdir"; exit 1; }
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	[ "$(git rev-parse --show-toplevel)" -ef . ]; then
	files=$(git ls-files -- "${existing[@]}")
else
	files=$(find "${existing[@]}" -type f \
		! -path '*/.deps/*' ! -path '*/.libs/*' ! -path '*/__pycache__/*' \
		! -name '*.o' ! -name '*.lo' ! -name '*.la' ! -name '*.a' ! -name '*.so*' \
		! -name '*.pyc' ! -name '.dirstamp' ! -name '*~' | sort |
		while IFS= read -r f; do [ -e "$f.in" ] || echo "$f"; done)
fi
[ -n "$files" ] || { echo "FAIL: no file found under $dirs"; exit 1; }

# Is @1 one of the words of row @2?
has_word() { grep -qxF -e "$1" <<<"${words[$2]}"; }

missing=()
while IFS= read -r f; do
	[ -f "$f" ] || continue
	dir=${f%/*} base=${f##*/}
	row=$dir
	while [ -z "${words[$row]+set}" ] && [[ $row == */* ]]; do row=${row%/*}; done
	if [ -z "${words[$row]+set}" ]; then
		missing+=("$f (no row for $dir/)")
		continue
	fi
	names=("$base")
	case $base in *.c|*.h) names+=("${base%.?}.[ch]") ;; esac
	ok=
	for n in "${names[@]}"; do
		if has_word "$n" "$row" || has_word "$dir/$n" "$row"; then ok=1; break; fi
	done
	[ -n "$ok" ] || missing+=("$f")
done <<<"$files"

stale=()
for row in $code_rows; do
	[ -n "${words[$row]+set}" ] || { stale+=("the row of $row/ itself"); continue; }
	while IFS= read -r w; do
		[[ $w =~ ^[A-Za-z0-9_./-]+\.(c|h|\[ch\])$ ]] || continue
		case $w in */*) p=$w ;; *) p=$row/$w ;; esac
		case $p in
		*.\[ch\]) [ -f "${p%.\[ch\]}.c" ] && [ -f "${p%.\[ch\]}.h" ] || stale+=("$p") ;;
		*) [ -f "$p" ] || stale+=("$p") ;;
		esac
	done <<<"${words[$row]}"
done

status=0
if [ "${#missing[@]}" -gt 0 ]; then
	echo "FAIL: not named in the Components table of $doc: ${missing[*]}"
	status=1
fi
if [ "${#stale[@]}" -gt 0 ]; then
	echo "FAIL: named in the Components table of $doc but not in the tree: ${stale[*]}"
	status=1
fi
[ "$status" -ne 0 ] || echo "ok: the $(wc -l <<<"$files") files of $dirs are named in the Components table of $doc, and it names no file that is not there"
exit "$status"
