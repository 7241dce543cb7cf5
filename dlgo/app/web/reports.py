"""The ``reports/`` folder as pages: a list of reports and each Markdown file as HTML.

Every experiment writes a ``summary.md`` with its plots and tables beside it.
:func:`list_reports` finds them; :func:`render_report` turns one into HTML
(CommonMark with tables; raw HTML in the file is shown as text), with its
relative links rewritten: another Markdown file opens as a report page, a
picture or a CSV is served from the folder. Only files inside the reports
folder are ever read (:func:`report_file`).
"""
from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from markdown_it import MarkdownIt

from dlgo.core.errors import DlgoError

#: the files a report page may fetch, by suffix, with their media types
SERVED = {".png": "image/png", ".gif": "image/gif", ".svg": "image/svg+xml", ".jpg": "image/jpeg",
          ".csv": "text/csv; charset=utf-8", ".md": "text/markdown; charset=utf-8",
          ".sgf": "application/x-go-sgf", ".txt": "text/plain; charset=utf-8"}


class NoSuchReport(DlgoError):
    """A report path outside the reports folder, or of a kind not served: HTTP 404."""


def report_file(root: Path, relative: str) -> Path:
    """The file ``relative`` inside ``root``; :class:`NoSuchReport` for anything
    else (a path that climbs out, a link out of it, a missing file, a kind not served)."""
    root = root.resolve()
    try:
        path = (root / unquote(relative)).resolve()
        found = root in path.parents and path.is_file() and path.suffix.lower() in SERVED
    except (OSError, ValueError):  # a name no file can have: too long, a NUL byte
        found = False
    if not found:
        raise NoSuchReport(f"no report file {relative[:100]!r}")
    return path


def _title(path: Path) -> str:
    """The first heading of a Markdown file (its folder's name if it has none)."""
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("# "):
                    return line[2:].strip()
    except (OSError, UnicodeDecodeError):
        pass
    return f"{path.parent.name}: {path.stem}"


def list_reports(root: Path) -> list[dict[str, str]]:
    """Each report folder's ``summary.md`` (and any other Markdown file directly
    under a top-level folder), with its title, sorted by path; only files inside
    the folder are read (:func:`report_file`: never one through a link out of it).
    Reports with the same title are told apart (:func:`distinct_titles`)."""
    if not root.is_dir():
        return []
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [folder / "summary.md"] if (folder / "summary.md").is_file() else sorted(folder.glob("*.md"))
        for path in files:
            relative = path.relative_to(root).as_posix()
            try:
                inside = report_file(root, relative)
            except NoSuchReport:
                continue
            found.append({"path": relative, "folder": folder.name, "title": _title(inside)})
    return distinct_titles(found)


def distinct_titles(reports: list[dict[str, str]]) -> list[dict[str, str]]:
    """``reports`` with each title that several share marked by what sets its
    report apart: what its folder's name adds to the group's common start
    (``ch04b_mcts-go5``: ``(go5)``; the folder that adds nothing keeps the plain
    title), or its path where that does not tell them apart."""
    groups: dict[str, list[dict[str, str]]] = {}
    for report in reports:
        groups.setdefault(report["title"], []).append(report)
    for title, group in groups.items():
        if len(group) < 2:
            continue
        folders = [r["folder"] for r in group]
        start = os.path.commonprefix(folders)
        if start not in folders:  # cut back to a whole word: go5 and go7, not 5 and 7
            start = start[:max(start.rfind("-"), start.rfind("_")) + 1]
        marks = [r["folder"][len(start):].strip("-_") for r in group]
        if len(set(marks)) < len(group):
            marks = [r["path"] for r in group]
        for report, mark in zip(group, marks):
            report["title"] = f"{title} ({mark})" if mark else title
    return reports


_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


def _rewrite(url: str, folder: str, kind: str) -> str:
    """A link of a report in ``folder`` as the page must follow it (``kind``: ``href`` or ``src``)."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("#") or not parts.path:
        return url
    path = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
    if path.startswith("../") or path == ".." or path.startswith("/"):
        return "#"  # outside the reports folder: not served
    if kind == "href" and path.endswith(".md"):
        return "#/reports/" + quote(path) + (f"#{parts.fragment}" if parts.fragment else "")
    return "/reports/" + quote(path)


def render_report(root: Path, relative: str) -> dict[str, Any]:
    """The Markdown file ``relative`` of the reports folder as ``{path, title, html}``."""
    path = report_file(root, relative)
    if path.suffix.lower() != ".md":
        raise NoSuchReport(f"{relative[:100]!r} is not a report (a .md file)")
    text = path.read_text(encoding="utf-8", errors="replace")
    folder = posixpath.dirname(path.relative_to(root.resolve()).as_posix())
    tokens = _markdown.parse(text)
    for token in tokens:
        for child in [token, *(token.children or [])]:
            if child.type == "link_open" and child.attrGet("href"):
                child.attrSet("href", _rewrite(str(child.attrGet("href")), folder, "href"))
            elif child.type == "image" and child.attrGet("src"):
                child.attrSet("src", _rewrite(str(child.attrGet("src")), folder, "src"))
    html = _markdown.renderer.render(tokens, _markdown.options, {})
    html = re.sub(r'<a href="(https?:)', r'<a target="_blank" rel="noopener" href="\1', html)
    return {"path": path.relative_to(root.resolve()).as_posix(), "title": _title(path), "html": html}
