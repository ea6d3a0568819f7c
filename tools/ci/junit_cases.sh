# Shell test cases as a JUnit report, for suites that run outside Bazel
# (sourced by test_consumers.sh and test_wheel.sh):
#
#   source tools/ci/junit_cases.sh
#   run_case SUITE NAME FUNCTION    runs FUNCTION in a subshell with
#                                   `set -euo pipefail`, its output in
#                                   $work/FUNCTION.log; prints one line, and
#                                   the log's end when it failed
#   write_cases SUITE FILE          writes the cases run so far as FILE
#
# `$work` must name a scratch directory. A case's function returns non-zero
# (or a command in it fails) to fail it; `case_failed` tells the caller
# whether the last case failed.

cases=()
case_failed=0

xml_escape() {
  tr -d '\000-\010\013\014\016-\037' |
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

run_case() {
  local suite=$1 name=$2 function=$3 log="$work/$3.log" start=$SECONDS
  local failure="" status
  # Not in an `if`: there bash would ignore `set -e` inside the function.
  set +e
  (
    set -euo pipefail
    "$function"
  ) >"$log" 2>&1
  status=$?
  set -e
  if ((status == 0)); then
    case_failed=0
    echo "$suite: $name passed ($((SECONDS - start)) s)"
  else
    case_failed=1
    echo "$suite: $name FAILED ($((SECONDS - start)) s); its output ends:"
    tail -n 40 "$log"
    failure="<failure message=\"$name failed\">$(tail -n 40 "$log" | xml_escape)</failure>"
  fi
  cases+=("<testcase classname=\"$suite\" name=\"$name\" time=\"$((SECONDS - start))\">$failure</testcase>")
}

write_cases() {
  printf '<testsuite name="%s">\n%s\n</testsuite>\n' "$1" "$(printf '%s\n' "${cases[@]}")" >"$2"
}
