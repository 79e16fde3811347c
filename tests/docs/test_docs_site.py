"""The documentation site builds, and its built HTML holds what a reader looks for.

The site (docs/, Sphinx) is built once per module, nitpicky (every cross-reference must resolve), from
a copy of docs/ and CHANGELOG.md in a temporary directory, so that the pages the build writes (the API
reference's, the pictures) stay out of the source tree. Then, in the HTML:

* every public name (each public namespace's ``__all__``, as docs/_ext/hockeystick_api.py reads them)
  has its page, and so has every namespace;
* the search index holds every public name as an object (what the search box finds);
* every link of the landing page resolves to a file of the build, and its #fragment to an id there;
* the API index gives every namespace a link and a one-line summary;
* no code, command or flag on any page holds a typographic dash or quote (a paste into a shell would
  fail): Docutils' smart quotes are off (docs/conf.py), and the CLI reference shows its examples as
  literal blocks (docs/_ext/hockeystick_cli.py);
* with playwright and a headless Chromium installed (playwright's own, or the system's ``chromium``), a
  real browser opens the landing page, follows each of its links, and searches for a public name;
  without them that test skips.

No warning may exist (the build is nitpicky and keeps going, so that one run lists them all, as
``sphinx-build -W --keep-going -n`` would refuse them): a warning of the site's own files (its configuration,
extensions, landing, install, migration, CLI and reference pages) fails its own test, and any other (a
docstring's, a guide page's) the whole build's, which lists them by source. Nor may a Docutils message that
the build prints without a file name (text that sphinx-argparse parses outside Sphinx's reporter: a help
text or epilog that is not valid reStructuredText), which leaves the build "succeeded".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

try:
    import fcntl
except ImportError:  # Windows: each xdist worker builds its own copy
    fcntl = None  # type: ignore[assignment]

for _module in ("sphinx", "furo", "myst_parser", "sphinxarg", "numpydoc"):
    pytest.importorskip(_module, reason=f"the docs site needs {_module}: pip install '.[docs]'")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# the files of the site itself, relative to docs/: a warning located in one of them is a defect here
SITE_FILES = re.compile(
    r"(^|/)docs/(conf\.py|_ext/|api/(index|_templates)|index\.md|install\.md|migrating-from-[\w-]+\.md|changelog\.md"
    r"|cli-reference\.md|pictures\.md)"
)
WARNING = re.compile(r"\b(WARNING|ERROR|CRITICAL):")
# a Docutils system message as Docutils itself prints it, outside Sphinx's logging (":7: (ERROR/3) ...")
DOCUTILS_MESSAGE = re.compile(r"\((?:WARNING|ERROR|SEVERE)/[234]\)")

pytestmark = pytest.mark.slow  # one build of the whole site: about a minute on two cores


@dataclass(frozen=True)
class Site:
    html: Path
    warnings: list[str]
    docutils_messages: list[str]


def _public_names() -> dict[str, Any]:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import hockeystick_api
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return hockeystick_api.public_names()


def _namespaces() -> list[str]:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import hockeystick_api
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return [space.name for space in hockeystick_api.public_namespaces()]


def _build(root: Path) -> Site:
    """Build the site from a copy of docs/ under ``root``; the warnings kept in ``root``/warnings.txt."""
    ignore = shutil.ignore_patterns("_build", "generated", "_pictures", "__pycache__")
    shutil.copytree(DOCS, root / "docs", ignore=ignore)
    shutil.copy(ROOT / "CHANGELOG.md", root / "CHANGELOG.md")
    html, warnings = root / "html", root / "warnings.txt"
    command = [sys.executable, "-m", "sphinx", "-n", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(root / "doctrees"), "-w", str(warnings), str(root / "docs"), str(html)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=root)
    assert result.returncode == 0, f"sphinx failed ({result.returncode}):\n{result.stderr[-4000:]}"
    (root / "stderr.txt").write_text(result.stderr, encoding="utf-8")
    (root / "built").touch()
    return _built(root)


def _built(root: Path) -> Site:
    warnings = root / "warnings.txt"
    lines = warnings.read_text(encoding="utf-8").splitlines() if warnings.exists() else []
    stderr = (root / "stderr.txt").read_text(encoding="utf-8").splitlines()
    return Site(
        root / "html",
        [line.replace(str(root), "") for line in lines if WARNING.search(line)],
        [line for line in stderr if DOCUTILS_MESSAGE.search(line)],
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """One build per run: under pytest-xdist the workers share the run's temporary directory, and the
    first to take the lock builds while the others wait for it and read its result."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None or fcntl is None:
        return _build(tmp_path_factory.mktemp("site"))
    shared = tmp_path_factory.getbasetemp().parent  # the run's directory, above each worker's own
    root = shared / "docs-site"
    with open(shared / "docs-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if (root / "built").exists():
                return _built(root)
            shutil.rmtree(root, ignore_errors=True)  # a build that failed part-way
            root.mkdir()
            return _build(root)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _of_the_site(line: str) -> bool:
    """A warning of the site's own making: in one of its files, in a page it writes (not a docstring's
    summary there), or without a source (a type in a signature that links nowhere, a duplicate entry)."""
    source = re.split(r" (?:WARNING|ERROR|CRITICAL):", line, maxsplit=1)[0]
    if "docstring of" in source or "<autosummary>" in source:
        return False
    return (
        bool(SITE_FILES.search(source))
        or source.startswith("<unknown>")
        or "/api/generated/" in source
    )


def test_the_site_files_build_without_a_warning(site: Site) -> None:
    """Configuration, extensions, the site's own pages and the types in signatures: no warning, no
    unresolved reference."""
    assert [line for line in site.warnings if _of_the_site(line)] == []


def test_no_text_makes_a_docutils_message(site: Site) -> None:
    """Text parsed outside Sphinx's reporter (sphinx-argparse parses each subcommand's help, description
    and epilog in a document of its own) reports its errors on stderr without a file name, and the build
    still succeeds: each such message is a defect (a definition list or emphasis where a command was meant)."""
    assert site.docutils_messages == []


def test_the_whole_build_is_warning_free(site: Site) -> None:
    by_source: dict[str, int] = {}
    for line in site.warnings:
        source = re.sub(r":\d+:.*", "", line.split(" WARNING:")[0].split(" ERROR:")[0])
        by_source[source] = by_source.get(source, 0) + 1
    print(f"{len(site.warnings)} warnings:")
    for source, count in sorted(by_source.items()):
        print(f"  {count:3d}  {source}")
    assert site.warnings == []


def test_every_public_name_and_namespace_has_a_page(site: Site) -> None:
    pages = site.html / "api" / "generated"
    names = [*_public_names(), *_namespaces()]
    assert len(names) > 200
    assert [name for name in names if not (pages / f"{name}.html").is_file()] == []


def _search_index(site: Site) -> dict[str, Any]:
    text = (site.html / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def test_the_search_index_holds_every_public_name(site: Site) -> None:
    index = _search_index(site)
    objects = {
        f"{prefix}.{entry[4]}" if prefix and entry[4] else prefix or entry[4]
        for prefix, entries in index["objects"].items()
        for entry in entries
    }
    assert sorted(set(_public_names()) - objects) == []
    assert sorted(set(_namespaces()) - objects) == []


def test_the_cli_reference_has_every_subcommand_and_flag(site: Site) -> None:
    """Each subcommand of the parser the command builds has its section, and each of its long flags
    appears in it."""
    import argparse

    from hockeystick.cli import build_parser

    page = (site.html / "cli-reference.html").read_text(encoding="utf-8")
    ids = _parse(site.html / "cli-reference.html").ids
    (subcommands,) = [
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    missing = []
    for name, parser in subcommands.choices.items():
        if f"hockeystick-{name}" not in ids:
            missing.append(name)
        flags = [
            flag
            for action in parser._actions
            for flag in action.option_strings
            if flag.startswith("--")
        ]
        missing += [f"{name} {flag}" for flag in flags if flag not in page]
    assert len(subcommands.choices) >= 10
    assert missing == []


class _Anchors(HTMLParser):
    """The href of every <a> inside the page's <article> (its content, not the navigation), and every id."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "article":
            self._depth += 1
        if tag == "a" and self._depth and values.get("href"):
            self.links.append(values["href"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._depth -= 1


def _parse(page: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_every_landing_page_link_resolves(site: Site) -> None:
    landing = site.html / "index.html"
    links = _parse(landing).links
    assert len(links) >= 15  # the three entry paths
    broken = []
    for href in links:
        parts = urlsplit(href)
        if parts.scheme or href.startswith("mailto:"):
            continue
        target = (landing.parent / unquote(parts.path)).resolve() if parts.path else landing
        if not target.is_file():
            broken.append(f"{href}: no file")
        elif parts.fragment and unquote(parts.fragment) not in _parse(target).ids:
            broken.append(f"{href}: no id {unquote(parts.fragment)!r}")
    assert broken == []


def test_a_browser_follows_the_landing_page_and_finds_a_name(site: Site) -> None:
    """A real browser (playwright's headless Chromium): each link of the landing page loads, and the
    search page lists a public name's page when asked for it."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch()
        except (
            Exception
        ) as error:  # playwright's own browser is not installed: a system Chromium, if any
            system = shutil.which("chromium") or shutil.which("chromium-browser")
            if system is None:
                pytest.skip(
                    f"no headless Chromium (`python -m playwright install chromium`): {error}"
                )
            browser = playwright.chromium.launch(executable_path=system)
        try:
            page = browser.new_page()
            landing = (site.html / "index.html").as_uri()
            page.goto(landing)
            hrefs = page.eval_on_selector_all("article a[href]", "links => links.map(a => a.href)")
            local = sorted({href.split("#")[0] for href in hrefs if href.startswith("file:")})
            assert len(local) >= 10
            failed = []
            for href in local:
                response = page.goto(href)
                if response is None or not response.ok or not page.title():
                    failed.append(href)
            assert failed == []
            page.goto((site.html / "search.html").as_uri() + "?q=SubsampledGaussianPLD")
            page.wait_for_selector("#search-results li a", timeout=30_000)
            found = page.eval_on_selector_all(
                "#search-results li a", "links => links.map(a => a.href)"
            )
            assert any("hockeystick.pld.SubsampledGaussianPLD.html" in href for href in found), (
                found
            )
        finally:
            browser.close()


def test_the_api_index_summarizes_every_namespace(site: Site) -> None:
    """The reference's index links each namespace's page beside the first line of its docstring."""
    page = (site.html / "api" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S)
    summaries = {}
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        link = re.search(r'href="generated/([\w.]+)\.html"', cells[0]) if len(cells) == 2 else None
        if link:
            summaries[link.group(1)] = re.sub(r"<[^>]+>", "", cells[1]).strip()
    assert sorted(summaries) == sorted(_namespaces())
    assert [name for name, text in summaries.items() if len(text.split()) < 4] == []


def test_the_sidebar_lists_the_namespaces_and_no_name(site: Site) -> None:
    """Every page's sidebar (furo's navigation) links each top-level namespace's page and no per-name page: a
    name is reached from its namespace's summary table, a package's submodules from its page
    (docs/_ext/hockeystick_sidebar.py)."""
    namespaces = {name for name in _namespaces() if name.count(".") <= 1}
    for page in (
        site.html / "index.html",
        site.html / "api" / "generated" / "hockeystick.pld.SubsampledGaussianPLD.html",
    ):
        html = page.read_text(encoding="utf-8")
        sidebar = re.search(r'<div class="sidebar-tree">(.*?)</div>', html, flags=re.S)
        assert sidebar is not None, page
        linked = set(
            re.findall(r'href="(?:[^"]*/)?(hockeystick(?:\.\w+)*)\.html"', sidebar.group(1))
        )
        assert namespaces <= linked, (page, sorted(namespaces - linked))
        assert linked <= namespaces, (page, sorted(linked - namespaces)[:5])


def _current_entries(page: Path) -> list[tuple[str, str]]:
    """The sidebar's entries marked current on ``page``: (their level's class, their href)."""
    sidebar = re.search(
        r'<div class="sidebar-tree">(.*?)</div>', page.read_text(encoding="utf-8"), flags=re.S
    )
    assert sidebar is not None, page
    found = re.findall(
        r'<li class="(toctree-l\d)[^"]*\bcurrent\b[^"]*"><a [^>]*href="([^"]*)"', sidebar.group(1)
    )
    return [(level, href) for level, href in found]


def test_each_pages_sidebar_marks_its_own_branch(site: Site) -> None:
    """The sidebar is drawn once per kind of page (docs/_ext/hockeystick_sidebar.py), yet each page's marks its
    own branch: a namespace's page links itself as ``#``, and a name's page marks its namespace, linked, not
    a sibling namespace and not itself; the landing page marks nothing."""
    generated = site.html / "api" / "generated"
    for namespace in ("hockeystick.pld", "hockeystick.rdp"):
        assert _current_entries(generated / f"{namespace}.html") == [
            ("toctree-l1", "../index.html"),
            ("toctree-l2", "#"),
        ]
    for name, namespace in (
        ("hockeystick.pld.laplace", "hockeystick.pld"),
        ("hockeystick.rdp.gaussian_rdp", "hockeystick.rdp"),
    ):
        expected = [("toctree-l1", "../index.html"), ("toctree-l2", f"{namespace}.html")]
        assert _current_entries(generated / f"{name}.html") == expected, name
    assert _current_entries(site.html / "index.html") == []


# dashes and curly quotes, which a shell or Python reads as other characters than the ASCII hyphen and
# quotes a reader meant to copy (the minus sign of a formula in a comment is left to the formula)
TYPOGRAPHIC = "\u2010\u2011\u2012\u2013\u2014\u2015\u2018\u2019\u201a\u201c\u201d\u201e"
# a flag whose hyphens became a dash: "\u2013flag", "\u2014noise-multiplier", at the start of a word
TYPOGRAPHIC_FLAG = re.compile(rf"(?<![\w{TYPOGRAPHIC}])[\u2010-\u2015]{{1,2}}[A-Za-z][\w-]*")
# a command's quotes made curly: pip install \u201chockeystick[dask]\u201d
TYPOGRAPHIC_COMMAND = re.compile(r"pip install [\u2018\u2019\u201a\u201c\u201d\u201e]")
CODE_TAGS = {"code", "pre", "kbd", "samp", "tt"}
# blocks that are read, not typed: a command's printed output, a diagram (```text fences)
READ_ONLY = {"highlight-text", "highlight-none"}


class _Code(HTMLParser):
    """The text of a page's content (inside <article>): what is code (a literal, a code block, an option
    of the CLI reference) and what is prose; a read-only block (output, a diagram) is neither."""

    def __init__(self) -> None:
        super().__init__()
        self.code: list[str] = []
        self.prose: list[str] = []
        self._open: list[
            tuple[str, str]
        ] = []  # each open element, and what it holds: code, read, or ""
        self._article = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article":
            self._article += 1
        classes = (dict(attrs).get("class") or "").split()
        kind = "read" if READ_ONLY & set(classes) else ""
        if tag in CODE_TAGS or {"pre", "literal", "option"} & set(classes):
            kind = kind or "code"
        if tag not in {"br", "img", "hr", "input", "meta", "link", "wbr"}:
            self._open.append((tag, kind))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._article -= 1
        for depth in range(len(self._open) - 1, -1, -1):
            if self._open[depth][0] == tag:
                del self._open[depth:]
                break

    def handle_data(self, data: str) -> None:
        kinds = [kind for _, kind in self._open if kind]
        if not self._article or not data.strip() or "read" in kinds:
            return
        (self.code if kinds else self.prose).append(data)


def test_no_code_or_flag_holds_a_typographic_dash_or_quote(site: Site) -> None:
    """On every page: code (inline literals, code blocks, the CLI reference's options and examples) holds
    only ASCII hyphens and quotes, and so do the flags and install commands written in prose."""
    found = []
    pages = sorted(site.html.rglob("*.html"))
    for page in pages:
        text = page.read_text(encoding="utf-8")
        start, end = text.find("<article"), text.rfind("</article>")
        # the content, not the navigation
        article = text[start : end + len("</article>")] if 0 <= start < end else text
        # each finding holds a typographic character: a page whose content holds none, its character
        # references decoded as the parser decodes them, has none to find (most pages: parsed only if so)
        if not set(unescape(article)) & set(TYPOGRAPHIC):
            continue
        parser = _Code()
        parser.feed(article)
        name = page.relative_to(site.html)
        found += [
            f"{name}: code {text.strip()[:80]!r}"
            for text in parser.code
            if set(text) & set(TYPOGRAPHIC)
        ]
        prose = " ".join(parser.prose)
        found += [f"{name}: flag {match.group()!r}" for match in TYPOGRAPHIC_FLAG.finditer(prose)]
        found += [
            f"{name}: command {match.group()!r}" for match in TYPOGRAPHIC_COMMAND.finditer(prose)
        ]
    assert len(pages) > 200
    assert found == []
