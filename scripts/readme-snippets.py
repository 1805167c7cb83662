#!/usr/bin/env python3
"""readme-snippets.py README.md - every code block the README marks as a snippet equals the
region of the compiled file it names, so the README shows only code the build compiles.

In the README, a marker line right before a fenced block:
    <!-- snippet: Examples/MyStore/Sources/Notes/Notes.swift#notes-kind -->
In the file, the region between two comment lines:
    // README: notes-kind
    ...
    // README: end
A whole file is named without '#'. Exit 0 when every snippet matches (and there is at least one),
1 with a diff otherwise.
"""
import difflib
import pathlib
import re
import sys

readme = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
root = readme.resolve().parent
lines = readme.read_text().splitlines()
marker = re.compile(r"<!--\s*snippet:\s*(\S+?)\s*-->")
failures, checked = 0, 0

def region(path, name):
    text = (root / path).read_text().splitlines()
    if name is None:
        return text
    start = next((i for i, l in enumerate(text) if l.strip() == f"// README: {name}"), None)
    if start is None:
        raise SystemExit(f"{path}: no region '// README: {name}'")
    end = next((i for i in range(start + 1, len(text)) if text[i].strip() == "// README: end"), None)
    if end is None:
        raise SystemExit(f"{path}: region {name} has no '// README: end'")
    return text[start + 1:end]

for index, line in enumerate(lines):
    match = marker.search(line)
    if not match:
        continue
    target = match.group(1)
    path, _, name = target.partition("#")
    fence = index + 1
    if fence >= len(lines) or not lines[fence].startswith("```"):
        print(f"{readme}:{index + 1}: the snippet marker for {target} is not followed by a code block")
        failures += 1
        continue
    close = next((i for i in range(fence + 1, len(lines)) if lines[i].startswith("```")), len(lines))
    shown = lines[fence + 1:close]
    expected = region(path, name or None)
    checked += 1
    if shown != expected:
        failures += 1
        print(f"{readme}:{fence + 2}: the block differs from {target}:")
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(expected, shown, target, str(readme), lineterm=""))

if checked == 0:
    print(f"{readme}: no snippet markers")
    sys.exit(1)
print(f"readme-snippets: {checked} snippets, {failures} differ")
sys.exit(1 if failures else 0)
