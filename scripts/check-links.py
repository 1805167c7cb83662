#!/usr/bin/env python3
"""check-links.py — no dead link between the repository's Markdown files, and no dead source path.

    python3 scripts/check-links.py        # from anywhere; exit 0 = every link and path resolves

For every tracked *.md file (outside .build*):
  links    [text](target) and [text]: target, except http(s), mailto and other schemes: the file or
           directory must exist inside the repository (a link that leaves it, such as ../shared/,
           is dead on a clone), and a #fragment must name a heading of the target Markdown file
           (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens);
  paths    a name ending in .md in prose, a `backticked` token in prose, or a word in a fenced code block, that names a source
           file (a path ending in .swift .md .sh .py .yaml .yml .json, or starting with Sources/
           Tests/ scripts/ Fuzz/ docs/ .ci/) must exist: relative to the repository root, to the
           Markdown file, or as the tail of some file's path (`Server/Epoll.swift`, `Router.swift`).
Skipped: tokens with placeholders (< > * { } $ …), absolute paths, ../shared/ (the shared tools
beside the repository, named as commands), build output (.build*, bench-results/), and the line
after a `<!-- check-links: skip -->` comment (a file a reader is told to create).
Standard library only.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXTENSIONS = (".swift", ".md", ".sh", ".py", ".yaml", ".yml", ".json")
ROOTS = ("Sources/", "Tests/", "scripts/", "Fuzz/", "docs/", ".ci/")
SKIPPED_PREFIXES = ("../shared/", "shared/", ".build", "bench-results/", "fuzz-artifacts/", "/", "~")


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True, text=True).stdout
        files = [line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    return sorted(f for f in files if not f.startswith(".build") and (ROOT / f).exists())


def slugs(markdown):
    """GitHub's anchors for the headings of a Markdown text (outside code blocks)."""
    seen, result = {}, set()
    for line in strip_code(markdown).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else f"{slug}-{n}")
    for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', markdown):
        result.add(m.group(1))
    return result


def strip_code(markdown):
    return re.sub(r"^(```|~~~).*?^\1[ \t]*$", "", markdown, flags=re.S | re.M)


def is_path_like(token):
    if any(c in token for c in "<>*{}$… \t|,;()[]'\"=") or token.startswith(SKIPPED_PREFIXES) or "://" in token:
        return False
    if token.startswith(ROOTS):
        return True
    return "/" in token and token.endswith(EXTENSIONS) or re.fullmatch(r"[\w+.-]+\.(swift|sh|py)", token) is not None


def main():
    files = tracked_files()
    file_set = set(files)
    dirs = {str(pathlib.PurePosixPath(f).parent) for f in files}
    for d in list(dirs):
        while d not in (".", ""):
            dirs.add(d)
            d = str(pathlib.PurePosixPath(d).parent)
    markdown_files = [f for f in files if f.endswith(".md")]
    anchors = {}
    problems = []

    def exists(target, base):
        path = (ROOT / base / target).resolve()
        try:
            rel = str(path.relative_to(ROOT))
        except ValueError:
            return None  # outside the repository
        return rel if rel == "." or rel in file_set or rel in dirs else False

    def path_resolves(token, base):
        token = token.rstrip("/.:")
        for candidate in (exists(token, "."), exists(token, base)):
            if candidate:
                return True
        return any(f == token or f.endswith("/" + token) for f in files) or any(d.endswith("/" + token) or d == token for d in dirs)

    for md in markdown_files:
        text = (ROOT / md).read_text(encoding="utf-8")
        base = str(pathlib.PurePosixPath(md).parent)
        lines = text.splitlines()
        skip = set()
        for i, line in enumerate(lines):
            if "<!-- check-links: skip -->" in line:
                skip.update({i, i + 1})
        in_fence = None
        for number, line in enumerate(lines, 1):
            fence = re.match(r"^(```|~~~)", line)
            if fence:
                in_fence = None if in_fence == fence.group(1) else (in_fence or fence.group(1))
                continue
            if number - 1 in skip:
                continue
            where = f"{md}:{number}"
            if in_fence:
                for word in re.findall(r"[\w./+-]+", line):
                    if word.startswith(ROOTS) and is_path_like(word) and not path_resolves(word, base):
                        problems.append(f"{where}: the code block names {word}, which does not exist")
                continue
            for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line) + re.findall(r"^\s*\[[^\]]+\]:\s*(\S+)", line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # http:, https:, mailto: ...
                path, _, fragment = target.partition("#")
                resolved = md if path == "" else exists(path, base)
                if resolved is None:
                    problems.append(f"{where}: the link {target} leaves the repository (dead on a clone); link a file inside it")
                    continue
                if resolved is False:
                    problems.append(f"{where}: the link {target} names a file that does not exist")
                    continue
                if fragment and resolved.endswith(".md"):
                    if resolved not in anchors:
                        anchors[resolved] = slugs((ROOT / resolved).read_text(encoding="utf-8"))
                    if fragment not in anchors[resolved]:
                        problems.append(f"{where}: the link {target} names no heading of {resolved} (#{fragment})")
            prose = re.sub(r"`[^`\n]*`|\]\([^)]*\)|https?://\S+", " ", line)
            for word in re.findall(r"(?<![\w/.-])([\w+-]+(?:/[\w+.-]+)*\.md)\b", prose):
                if not path_resolves(word, base):
                    problems.append(f"{where}: {word} names a file that does not exist")
            for token in re.findall(r"`([^`\n]+)`", line):
                token = token.strip()
                if is_path_like(token) and not path_resolves(token, base):
                    problems.append(f"{where}: `{token}` names a file that does not exist")

    if problems:
        print(f"check-links: {len(problems)} dead link(s) or path(s) in the Markdown files:")
        for p in problems:
            print("  - " + p)
        return 1
    print(f"check-links: every link and source path in {len(markdown_files)} Markdown files resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
