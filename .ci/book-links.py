#!/usr/bin/env python3
"""Checks the links of the built book (docs/book): every relative link names
a page that exists and, where it has a fragment, a heading or element id on
that page. Exits with 1, listing them, when any link is broken."""
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/book").resolve()


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


pages = {}
for path in ROOT.rglob("*.html"):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    pages[path] = page

broken = []
for path, page in sorted(pages.items()):
    for href in page.links:
        url = urlsplit(href)
        if url.scheme or url.netloc or href.startswith(("mailto:", "javascript:")):
            continue
        target = (path.parent / unquote(url.path)).resolve() if url.path else path
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(f"{path.relative_to(ROOT)}: {href} (no such file)")
        elif url.fragment and target in pages and unquote(url.fragment) not in pages[target].ids:
            broken.append(f"{path.relative_to(ROOT)}: {href} (no such anchor)")
if broken:
    print("broken links in the book:", *sorted(set(broken)), sep="\n  ")
    sys.exit(1)
print(f"book links: {sum(len(p.links) for p in pages.values())} links in {len(pages)} pages, none broken")
