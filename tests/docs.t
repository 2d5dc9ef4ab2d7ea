#!/usr/bin/env bash
# The documentation says what the tree does (tests/docs_check.py): the README's
# and the linked pages' commands exist, answer --help and know the options they
# are shown with; the paths they name exist; docs/exit-statuses.md lists for
# each tool the statuses its own header lists. A planted wrong path, option or
# exit status is caught, each by name.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch

python3 tests/docs_check.py > "$d/real.out" 2>&1
rc=$?
sed 's/^/# /' "$d/real.out" | tail -20
ok $rc "the documentation matches the tree ($(tail -1 "$d/real.out"))"

# A copy of the tree whose pages can be changed: the rest is linked.
plant() {  # NAME PAGE SED-EXPRESSION: the checker on a tree with one change
  local t=$d/$1
  mkdir -p "$t"
  for f in * .ci; do [ -e "$f" ] && ln -s "$PWD/$f" "$t/$f"; done
  rm "$t/README.md" "$t/docs"
  cp README.md "$t/"
  cp -r docs "$t/docs"
  sed -i "$3" "$t/$2"
  python3 tests/docs_check.py "$t" > "$t.out" 2>&1
}
plant path README.md 's#`ci/examples/github-workflow.yml`#`ci/examples/gitlab-workflow.yml`#'
[ $? = 1 ] && grep -q '^README.md:[0-9]*: path ci/examples/gitlab-workflow.yml does not exist' "$d/path.out"
ok $? "a wrong path is caught ($(head -1 "$d/path.out"))"
plant option README.md 's#repro corpus/reproducers/jdk17-method-bcp-from-c9c152.md --protect 0#repro corpus/reproducers/jdk17-method-bcp-from-c9c152.md --protekt 0#'
[ $? = 1 ] && grep -q '^README.md:[0-9]*: crash-triage/repro: option --protekt is not in its --help' "$d/option.out"
ok $? "a wrong option is caught ($(head -1 "$d/option.out"))"
plant status docs/exit-statuses.md '/^| `ci\/census`/s/| could not run (usage, VM, build) | |/| could not run (usage, VM, build) | VM gone |/'
[ $? = 1 ] && grep -q "^docs/exit-statuses.md:[0-9]*: ci/census: the page lists \[0, 2, 3\], its own header \[0, 2\]" "$d/status.out"
ok $? "a wrong exit status is caught ($(head -1 "$d/status.out"))"
plant tool README.md 's#ci/premerge --base#ci/pre-merge --base#'
[ $? = 1 ] && grep -q '^README.md:[0-9]*: command ci/pre-merge: no such executable' "$d/tool.out"
ok $? "a command that does not exist is caught ($(head -1 "$d/tool.out"))"
tap_done
