#!/usr/bin/env python3
"""check-docs.py — the API reference (docs/API.md) agrees with openapi.yaml and with the code.

    python3 scripts/check-docs.py        # from anywhere; exit 0 = consistent, 1 = something is missing

Checks, each in both directions where both sides list things:
  routes    every operation of openapi.yaml (method + path, OPTIONS and HEAD aside: docs/API.md
            covers those once, under Conventions) has a heading "### `METHOD /path`" and a row of
            the Routes table in docs/API.md, and every such heading is an operation of openapi.yaml;
  problems  the slugs of openapi.yaml's ProblemSlug enum, the rows of docs/API.md's
            "## Problem types" table and the entries of the server's ProblemCatalog are the same;
  metrics   every metric the server exposes (`# TYPE storehouse_…` in the code) is named in docs/API.md;
  events    every SSE event openapi.yaml names (`event: { const: X }`) is in docs/API.md as
            "event: X", and every "event: X" row of its "## Events" table is in openapi.yaml;
  flags     every flag in ServerConfiguration.options is a row of docs/API.md's "## Flags" table
            and of the README's configuration table, and neither table has a flag the server lacks.
Every failure names the thing, the file that lacks it, and what to add. Standard library only.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPENAPI = ROOT / "openapi.yaml"
API = ROOT / "docs" / "API.md"
README = ROOT / "README.md"
SOURCES = ROOT / "Sources" / "StorehouseServer"
METHODS = ("get", "post", "put", "patch", "delete")


def read(path):
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        sys.exit(f"check-docs: cannot read {path.relative_to(ROOT)}: {error}")


def openapi_operations(text):
    """(METHOD, path) of every operation under `paths:`, read by indentation (no YAML library)."""
    operations, path, in_paths = set(), None, False
    for line in text.splitlines():
        if re.match(r"^paths:\s*$", line):
            in_paths = True
            continue
        if in_paths and re.match(r"^\S", line):
            break
        if not in_paths:
            continue
        m = re.match(r"^  (/[^\s:]*):\s*$", line)
        if m:
            path = m.group(1)
            continue
        m = re.match(r"^    ([a-z]+):", line)
        if m and path and m.group(1) in METHODS:
            operations.add((m.group(1).upper(), path))
    return operations


def openapi_slugs(text):
    m = re.search(r"^    ProblemSlug:\n(?:      .*\n)*?      enum:\n((?:        - .*\n)+)", text, re.M)
    if not m:
        sys.exit("check-docs: openapi.yaml has no components.schemas.ProblemSlug enum")
    return {line.strip()[2:].strip() for line in m.group(1).splitlines()}


def section(text, title):
    """The body of the Markdown section `## title`, up to the next `## ` heading."""
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else None


def first_column_codes(body, pattern):
    """Backticked tokens matching `pattern` in the first cell of each table row."""
    found = set()
    for line in (body or "").splitlines():
        if not line.startswith("|"):
            continue
        cell = line.split("|")[1]
        found.update(t for t in re.findall(r"`([^`]+)`", cell) if re.fullmatch(pattern, t))
    return found


def main():
    spec, api, readme = read(OPENAPI), read(API), read(README)
    problems = []

    def differ(what, have, want, lacking_file, advice):
        for item in sorted(want - have):
            message = f"{lacking_file} lacks {what} {item}: {advice(item)}"
            if message not in problems:
                problems.append(message)

    # Routes.
    spec_routes = openapi_operations(spec)
    doc_routes = {(m.group(1), m.group(2)) for m in re.finditer(r"^###\s+`([A-Z]+) (/[^`\s]*)`\s*$", api, re.M)}
    differ("the route", {f"{m} {p}" for m, p in doc_routes}, {f"{m} {p}" for m, p in spec_routes}, "docs/API.md",
           lambda r: f'add a section "### `{r}`" (what it does, its members, status codes, a curl example) and a row in the Routes table')
    differ("the route", {f"{m} {p}" for m, p in spec_routes}, {f"{m} {p}" for m, p in doc_routes}, "openapi.yaml",
           lambda r: "describe it under paths: (or drop the section from docs/API.md if the server does not serve it)")

    table = {(m.group(1), m.group(2)) for m in re.finditer(r"^\|\s*\[?`([A-Z]+) (/[^`\s]*)`", section(api, "Routes") or "", re.M)}
    differ("the Routes table row", {f"{m} {p}" for m, p in table}, {f"{m} {p}" for m, p in doc_routes}, "docs/API.md",
           lambda r: f'add "| [`{r}`](#anchor) | what it does |" to the table at the top of "## Routes"')

    # Metrics.
    metrics = set()
    for swift in sorted(SOURCES.rglob("*.swift")):
        metrics.update(re.findall(r"# TYPE (storehouse_[a-z0-9_]+)", read(swift)))
    doc_metrics = set(re.findall(r"`(storehouse_[a-z0-9_]+)`", api))
    differ("the metric", doc_metrics, metrics, "docs/API.md",
           lambda n: f'add a row "| `{n}` | type: meaning | labels |" to the metrics table under GET /metrics')

    # Problem types.
    spec_slugs = openapi_slugs(spec)
    doc_slugs = first_column_codes(section(api, "Problem types"), r"[a-z]+(-[a-z]+)*")
    if section(api, "Problem types") is None:
        problems.append('docs/API.md lacks its "## Problem types" section (a table: slug | status | meaning | extension members)')
    catalog = set()
    for swift in sorted(SOURCES.rglob("*.swift")):
        catalog.update(re.findall(r'"([a-z]+(?:-[a-z]+)*)":\s*\("', read(swift)))
    if not catalog:
        problems.append("Sources/StorehouseServer has no ProblemCatalog entries (lines `\"slug\": (\"Title\", \"explanation\")`)")
    row = lambda s: f'add the row "| `{s}` | status | meaning | extension members |" to the Problem types table'
    differ("the problem type", doc_slugs, spec_slugs, "docs/API.md", row)
    differ("the problem type", doc_slugs, catalog, "docs/API.md", row)
    differ("the problem type", spec_slugs, doc_slugs | catalog, "openapi.yaml",
           lambda s: "add it to components.schemas.ProblemSlug's enum (and to the responses that send it)")
    if catalog:
        differ("the problem type", catalog, spec_slugs | doc_slugs, "ProblemCatalog (Routes/Problem.swift)",
               lambda s: "add its title and explanation, which GET /problems/{slug} serves")

    # Events.
    spec_events = set(re.findall(r"event:\s*\{\s*const:\s*([a-z-]+)\s*\}", spec))
    doc_events = set(re.findall(r"`event: ([a-z-]+)`", section(api, "Events") or ""))
    differ("the event", doc_events, spec_events, "docs/API.md",
           lambda e: f'add a row "| `event: {e}` | id | data | when |" to the Events table')
    differ("the event", spec_events, doc_events, "openapi.yaml",
           lambda e: "add it to components.schemas.ServerSentEvent")

    # Flags.
    flags = set()
    for swift in sorted((SOURCES / "Configuration").rglob("*.swift")):
        flags.update(re.findall(r'flag:\s*"(--[a-z0-9-]+)"', read(swift)))
    if not flags:
        problems.append("Sources/StorehouseServer/Configuration has no `flag: \"--…\"` options")
    doc_flags = first_column_codes(section(api, "Flags"), r"--[a-z0-9-]+")
    readme_flags = set()
    for line in readme.splitlines():
        if line.startswith("|"):
            readme_flags.update(re.findall(r"`(--[a-z0-9-]+)[^`]*`", line.split("|")[1]))
    differ("the flag", doc_flags, flags, "docs/API.md",
           lambda f: f'add a row "| `{f}` | what a client sees of it |" to the Flags table')
    differ("the flag", readme_flags, flags, "README.md",
           lambda f: f"add a row for `{f}` (variable, default, what) to the configuration table")
    differ("the flag", flags, doc_flags, "ServerConfiguration.options",
           lambda f: "the server has no such flag: remove the row from docs/API.md")
    differ("the flag", flags, readme_flags, "ServerConfiguration.options",
           lambda f: "the server has no such flag: remove the row from the README's configuration table")

    if problems:
        print("check-docs: docs/API.md, openapi.yaml, README.md and the code disagree:")
        for p in problems:
            print("  - " + p)
        return 1
    print(f"check-docs: {len(spec_routes)} routes, {len(spec_slugs)} problem types, {len(spec_events)} events, {len(metrics)} metrics "
          f"and {len(flags)} flags agree across openapi.yaml, docs/API.md, README.md and the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
