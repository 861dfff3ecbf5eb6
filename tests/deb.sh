#!/usr/bin/env bash
# deb.sh - the Debian package as a lab installs it: `make deb` builds it,
# `apt-get install ./cuk_*.deb` installs it, the installed cuk rehearses the
# installed lecture (exit 0), finds its lessons (`help lessons`, `run` of a
# lesson by name from another folder), `man cuk` shows the page, and
# `apt-get purge cuk` leaves no file behind (the files before and after
# compared). It changes the system, so it runs only as root or with sudo
# that asks no password, where apt-get is, and not over a cuk package
# installed already; else each case skips by name.
. "$(dirname "$0")/lib.sh"
cases="deb_builds deb_installs deb_rehearses_lecture deb_finds_lessons deb_man_page deb_removes_all"
root=$(cd "$tests/.." && pwd)

skip_all() {
    for c in $cases; do echo "SKIP $c: $1"; done
    exit 0
}
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || skip_all "no apt-get or dpkg-deb here"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo -n true 2>/dev/null || skip_all "installing needs root or sudo without a password"
    sudo="sudo -n"
fi
[ -n "${SAN_LOG:-}" ] && skip_all "a sanitizer build is not packaged"
dpkg -s cuk 2>/dev/null | grep -q '^Status: install ok' && skip_all "a cuk package is installed already: not replacing it"

# The package of this build ($BUILD, with the options make test was given:
# they reach this make through MAKEFLAGS).
if ! make -C "$root" --no-print-directory BUILD="$BUILD" deb >make.log 2>&1; then
    echo "FAIL deb_builds: make deb failed: $(tail -5 make.log | tr '\n' ' ')"
    exit 0
fi
deb=$(ls "$root/$BUILD"/cuk_*.deb 2>/dev/null | head -n 1)
control=$(dpkg-deb -f "$deb" 2>/dev/null)
files=$(dpkg-deb -c "$deb" 2>/dev/null)
[ -n "$deb" ] && grep -qE '^Depends: .*libc6 \(>= 2\.[0-9]+\)' <<<"$control" &&
    grep -q '/usr/bin/cuk$' <<<"$files" && grep -q '/usr/share/cuk/scripts/lecture.cuk$' <<<"$files" &&
    grep -q '/usr/share/man/man1/cuk.1.gz$' <<<"$files" && grep -q '/usr/share/doc/cuk/copyright$' <<<"$files"
result_plain() { if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
result_plain deb_builds $? "the package lacks a part: $(head -c 300 <<<"$control")"

# Every file under the folders a package writes to.
snapshot() { find /usr /etc /var/lib/dpkg/info -xdev 2>/dev/null | sort; }
# Containers that leave manual pages out (path-exclude in dpkg.cfg.d) would
# drop cuk's too: let this one in, as a lab's machine would have it.
include_man=()
if grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
    include_man=(-o 'DPkg::Options::=--path-include=/usr/share/man/man1/cuk.1.gz')
fi
apt() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get -y -qq -o DPkg::Lock::Timeout=300 "$@"; }
snapshot >before.txt
trap 'apt purge cuk >/dev/null 2>&1; command -v tmux >/dev/null 2>&1 && tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
apt install --no-install-recommends "${include_man[@]}" "$deb" >apt.log 2>&1
status=$?
[ $status = 0 ] && dpkg -s cuk 2>/dev/null | grep -q '^Status: install ok' && [ -x /usr/bin/cuk ]
result_plain deb_installs $? "apt-get install exited $status: $(tail -3 apt.log | tr '\n' ' ')"
dpkg -L cuk 2>/dev/null | sort >owned.txt

out=$(/usr/bin/cuk --rehearse /usr/share/cuk/scripts/lecture.cuk 2>&1)
status=$?
[ $status = 0 ] && grep -q '^#: ' <<<"$out"
result_plain deb_rehearses_lecture $? "exit $status: $(tail -3 <<<"$out" | tr '\n' ' ')"

lessons=$(/usr/bin/cuk -e 'help lessons' 2>&1)
byname=$(/usr/bin/cuk --rehearse -e 'run "5-bank-conflicts.cuk"' 2>&1)
status=$?
grep -q 'the demo scripts, in /usr/share/cuk/scripts' <<<"$lessons" && [ $status = 0 ] && grep -q '^#: ' <<<"$byname"
result_plain deb_finds_lessons $? "help lessons: $(head -1 <<<"$lessons"); run by name exit $status: $(head -2 <<<"$byname" | tr '\n' ' ')"

# (A minimised Ubuntu diverts man to a stub and keeps the real one aside.)
man=man
[ -x /usr/bin/man.REAL ] && man=/usr/bin/man.REAL
page=$(MANWIDTH=80 $man -P cat cuk 2>&1 | sed $'s/.\b//g') # no overstriking
grep -q 'interactive matrix calculator' <<<"$page" && grep -qE 'save +plot' <<<"$page"
result_plain deb_man_page $? "man cuk: $(head -2 <<<"$page" | tr '\n' ' ')"

apt purge cuk >purge.log 2>&1
status=$?
snapshot >after.txt
left=$(comm -13 before.txt after.txt | grep -i cuk)
kept=$(while read -r f; do [ "$f" != /. ] && [ -e "$f" ] && ! grep -qxF "$f" before.txt && echo "$f"; done <owned.txt)
[ $status = 0 ] && ! dpkg -s cuk >/dev/null 2>&1 && [ -z "$left" ] && [ -z "$kept" ] && [ -s owned.txt ]
result_plain deb_removes_all $? "purge exit $status; left behind: $(echo $left $kept | head -c 300)"
