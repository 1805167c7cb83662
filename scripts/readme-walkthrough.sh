#!/usr/bin/env bash
# readme-walkthrough.sh README BASE_URL - run the README's curl walkthrough verbatim against a
# fresh server and fail when a step prints something other than what the README says it prints.
#
#   bash scripts/readme-walkthrough.sh README.md http://127.0.0.1:8080
#
# The walkthrough is the part of README between `<!-- walkthrough:begin -->` and
# `<!-- walkthrough:end -->`. In it:
#   - every ```sh block is a step; all steps run in order in ONE bash process (variables carry
#     over), in a scratch directory, with STOREHOUSE exported as BASE_URL;
#   - the ```text block that follows a step (before the next ```sh block) is what the step must
#     print on stdout: compared line by line after removing all spaces/tabs/CRs and dropping
#     blank lines, with `…` (U+2026) in an expected line matching any run of characters.
#     A step without a ```text block must print nothing.
# Exit status of the steps is not checked (a bounded `curl -N --max-time` exits 28 by design);
# their output is. Needs bash, python3 and whatever the steps call (curl).
#
# Env: WALKTHROUGH_TIMEOUT (default 120 s for all steps together).
# Exit: 0 = every step printed what the README says, 1 = a step differs, 2 = usage/setup error.
set -uo pipefail

PROG=${0##*/}
if [ $# -ne 2 ] || [ ! -f "$1" ]; then
  echo "usage: $PROG README.md BASE_URL   (e.g. $PROG README.md http://127.0.0.1:8080)" >&2
  exit 2
fi
README=$1
BASE_URL=${2%/}
TIMEOUT=${WALKTHROUGH_TIMEOUT:-120}
command -v python3 >/dev/null || { echo "$PROG: python3 is required" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readme-walkthrough.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Fail early, and clearly, when nothing listens at BASE_URL.
if ! curl -s -o /dev/null --max-time 5 "$BASE_URL/healthz"; then
  echo "$PROG: no server answers at $BASE_URL/healthz" >&2
  exit 2
fi

# 1. Extract the steps into a bash script that prints a marker line before each one, and the
#    expectations into one file per step.
python3 - "$README" "$WORK" <<'PY' || exit 2
import re, sys, pathlib
readme, work = sys.argv[1], pathlib.Path(sys.argv[2])
text = pathlib.Path(readme).read_text(encoding="utf-8")
m = re.search(r"<!--\s*walkthrough:begin\s*-->(.*?)<!--\s*walkthrough:end\s*-->", text, re.S)
if not m:
    sys.exit(f"{readme}: no <!-- walkthrough:begin --> ... <!-- walkthrough:end --> section")
# Fenced blocks: ``` or ~~~ with an info string; the closing fence repeats the opening one.
fences = re.finditer(r"^(```|~~~)[ \t]*([^\n`]*)\n(.*?)^\1[ \t]*$", m.group(1), re.S | re.M)
steps = []  # [code, expected or None]
for f in fences:
    info = f.group(2).strip().split()
    lang = info[0] if info else ""
    if lang in ("sh", "bash", "shell"):
        steps.append([f.group(3), None])
    elif lang == "text" and steps and steps[-1][1] is None:
        steps[-1][1] = f.group(3)
if not steps:
    sys.exit(f"{readme}: the walkthrough section has no ```sh blocks")
script = ["cd " + repr(str(work / "cwd"))]
for i, (code, expected) in enumerate(steps, 1):
    (work / f"step{i}.sh").write_text(code, encoding="utf-8")
    (work / f"step{i}.expected").write_text(expected or "", encoding="utf-8")
    # The marker goes to stdout, where the step's own output goes, so the output splits by step.
    script.append(f"printf '\\n@@readme-walkthrough-step {i}@@\\n'")
    script.append(code.rstrip("\n"))
script.append("printf '\\n@@readme-walkthrough-end@@\\n'")
(work / "cwd").mkdir()
(work / "all.sh").write_text("\n".join(script) + "\n", encoding="utf-8")
(work / "count").write_text(str(len(steps)))
PY

STEPS=$(cat "$WORK/count")
echo "$PROG: $STEPS steps from $README against $BASE_URL"

# 2. Run every step, verbatim, in one bash.
timeout --kill-after=5 "$TIMEOUT" \
  env STOREHOUSE="$BASE_URL" bash "$WORK/all.sh" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null
rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
  echo "$PROG: FAIL: the walkthrough did not finish within ${TIMEOUT}s" >&2
fi

# 3. Compare each step's output with its expectation.
python3 - "$WORK" "$STEPS" <<'PY'
import re, sys, pathlib
work, count = pathlib.Path(sys.argv[1]), int(sys.argv[2])
out = (work / "stdout").read_text(encoding="utf-8", errors="replace")
parts = re.split(r"^@@readme-walkthrough-(?:step (\d+)|end)@@$", out, flags=re.M)
# parts: [before, "1", out1, "2", out2, ..., None, after-end]
outputs = {}
for k in range(1, len(parts) - 1, 2):
    if parts[k] is not None:
        outputs[int(parts[k])] = parts[k + 1]
finished = "@@readme-walkthrough-end@@" in out

def norm(s):
    return [l for l in (re.sub(r"[ \t\r]", "", line) for line in s.split("\n")) if l]

def pattern(line):
    return re.compile(".*".join(re.escape(p) for p in line.split("\u2026")), re.S)

failed = 0
for i in range(1, count + 1):
    code = (work / f"step{i}.sh").read_text(encoding="utf-8")
    want = norm((work / f"step{i}.expected").read_text(encoding="utf-8"))
    if i not in outputs:
        print(f"step {i}: FAIL: did not run (an earlier step exited the shell or the run timed out)")
        failed += 1
        continue
    got = norm(outputs[i])
    problem = None
    for n in range(max(len(want), len(got))):
        w = want[n] if n < len(want) else None
        g = got[n] if n < len(got) else None
        if w is None:
            problem = f"line {n + 1}: printed more than expected: {g!r}"
        elif g is None:
            problem = f"line {n + 1}: missing, expected {w!r}"
        elif not pattern(w).fullmatch(g):
            problem = f"line {n + 1}:\n    expected {w!r}\n    got      {g!r}"
        if problem:
            break
    first = code.strip().split("\n")[0]
    if problem:
        failed += 1
        print(f"step {i}: FAIL: {first}\n  {problem}")
        print("  --- step ---\n" + "".join(f"  | {l}\n" for l in code.rstrip().split("\n")))
        print("  --- printed ---\n" + "".join(f"  | {l}\n" for l in outputs[i].strip("\n").split("\n")))
    else:
        print(f"step {i}: ok   {first}")
if not finished and failed == 0:
    print("FAIL: the walkthrough did not run to its end")
    failed += 1
err = (work / "stderr").read_text(encoding="utf-8", errors="replace").strip()
if failed and err:
    print("--- stderr of the steps ---\n" + err[-3000:])
print(f"{'FAIL' if failed else 'PASS'}: {count - failed if failed <= count else 0}/{count} steps print what the README says")
sys.exit(1 if failed else 0)
PY
