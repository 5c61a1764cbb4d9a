#!/bin/bash
# install.sh BUILD_DIR SRC_DIR: `cmake --install` into a temporary prefix puts the
# binary, the man page satscope(1) and the bash completion in their places;
# the man page renders within 100 columns, has its EXAMPLES, documents every option --help
# lists and in ENVIRONMENT every variable the sources getenv(); the completion offers the
# commands, each command's options and --by's values.
build=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/p" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
bin=$tmp/p/bin/satscope
man1=$tmp/p/share/man/man1/satscope.1
comp=$tmp/p/share/bash-completion/completions/satscope
[ -x "$bin" ] || fail "no $bin"
[ -s "$man1" ] || fail "no $man1"
[ -s "$comp" ] || fail "no $comp"
"$bin" --version | grep -q '^satscope [0-9]' || fail "installed binary: --version"

# the man page: rendered by man or groff when there is one, else its roff structure
for s in '^\.TH SATSCOPE 1' '^\.SH NAME' '^\.SH SYNOPSIS' '^\.SH DESCRIPTION' '^\.SH COMMANDS' '^\.SH EXIT STATUS' '^\.SH ENVIRONMENT' '^\.SH FILES' '^\.SH EXAMPLES'; do
  grep -q "$s" "$man1" || fail "satscope.1 lacks $s"
done
if command -v man >/dev/null && MANWIDTH=100 man -l "$man1" >"$tmp/man.txt" 2>"$tmp/man.err"; then
  render="man -l"
elif command -v groff >/dev/null; then
  groff -man -Tascii -rLL=100n "$man1" 2>"$tmp/man.err" | sed 's/.\x08//g' >"$tmp/man.txt"
  render=groff
else
  sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man1" >"$tmp/man.txt"
  render=none
fi
[ -s "$tmp/man.err" ] && { cat "$tmp/man.err"; fail "$render warns about satscope.1"; }
if [ "$render" != none ]; then
  wide=$(awk 'length > 100 { printf "line %d: %d columns\n", NR, length }' "$tmp/man.txt")
  [ -z "$wide" ] || fail "the man page ($render, 100 columns) has longer lines: $wide"
fi
# ENVIRONMENT names every variable the program reads (tests, benchmarks and the lab aside)
vars=$(cd "$src" && grep -rhoE --include='*.c' 'getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' \
         base parse trace result collect analyze report cli | sort -u | sed -E 's/getenv\("(.*)"\)/\1/')
[ -n "$vars" ] || fail "no getenv call found under $src"
sed -n '/^ENVIRONMENT/,/^FILES/p' "$tmp/man.txt" >"$tmp/env.txt"
for v in $vars; do
  grep -qE "^ +$v( |\$)" "$tmp/env.txt" || fail "the man page's ENVIRONMENT ($render) lacks $v, which the sources read"
done
commands=$("$bin" --help | awk '/^commands:/ { f = 1; next } f && /^  / { print $1 } f && /^$/ { exit }')
[ "$(echo $commands | wc -w)" -ge 9 ] || fail "satscope --help lists too few commands: $commands"
for c in $commands; do
  grep -q "satscope $c" "$tmp/man.txt" || fail "the man page ($render) lacks satscope $c"
  for o in $("$bin" help "$c" | grep -oE '^  (-., )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
    grep -q -- "$o" "$tmp/man.txt" || fail "the man page ($render) lacks $c's $o"
  done
done

# the completion, as bash would call it
complete_words() { # WORDS...: what _satscope offers for the last one
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _satscope; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
bash -c 'source "$1"; complete -p satscope' _ "$comp" | grep -q -- '-F _satscope satscope' || fail "completion not registered"
got=$(complete_words satscope '')
for c in $commands help; do
  echo "$got" | grep -qx "$c" || fail "completion of commands lacks $c (got: $got)"
done
for c in $commands; do
  got=$(complete_words satscope "$c" --)
  for o in $("$bin" help "$c" | grep -oE '^  (-., )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
    echo "$got" | grep -qx -- "$o" || fail "completion of $c options lacks $o"
  done
done
[ "$(complete_words satscope etime --ro)" = "--root-dn" ] || fail "completion of --ro"
got=$(complete_words satscope etime --by '')
for v in op base filter client binddn conn minute internal; do
  echo "$got" | grep -qx "$v" || fail "completion of etime --by lacks $v"
done
[ "$(complete_words satscope help eti)" = "etime" ] || fail "completion of help eti"
echo "installed: bin/satscope, share/man/man1/satscope.1 (checked with $render), share/bash-completion/completions/satscope"
