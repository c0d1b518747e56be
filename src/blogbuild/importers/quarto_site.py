"""site.yaml from a Quarto project: the website's title, address, description and navbar,
the blog listing's options, and a remark for each setting with no counterpart here."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

from blogbuild.config_checks import base_url_problem
from blogbuild.importers.quarto_project import Project, Remark
from blogbuild.urls import is_allowed_url, url_problem

#: A document's project-relative path -> its URL on the new site (None: not imported).
UrlOf = Callable[[str], str | None]
#: A document's project-relative path -> its title (None: it has none).
TitleOf = Callable[[str], str | None]

_WEBSITE_DONE = {"title", "site-url", "description", "navbar", "repo-url", "repo-branch",
                 "repo-subdir"}
_WEBSITE_WHY = {
    "search": "blogbuild's own search box is on (search: in site.yaml)",
    "open-graph": "link previews are made for every page (social: in site.yaml)",
    "twitter-card": "link previews are made for every page (social: in site.yaml)",
    "favicon": "put the icon under static/ and name it in your templates",
    "sidebar": "a site sidebar has no counterpart; the header's nav is the menu",
    "page-footer": "the footer is the theme's (templates/ can change it)",
    "comments": "comments here are giscus' (comments: in site.yaml)",
}
#: Keys of _quarto.yml that are the project's settings, not metadata of its documents.
_NOT_METADATA = {"project", "website", "format", "lang", "author", "bibliography", "filters",
                 "profile", "metadata-files", "editor", "engine", "jupyter", "knitr",
                 "editor_options"}
_LISTING_DONE = {"contents", "sort", "page-size", "feed", "categories", "id"}
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
_NAMED = re.compile(r"""title=["']([^"'\n]+)["']""")
_GITHUB = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?$")


def site_settings(project: Project, url_of: UrlOf, title_of: TitleOf, *,
                  listing_title: str | None, listing_description: str | None,
                  files: set[str]) -> dict[str, Any]:
    """site.yaml's values; the project gets a remark for each setting left behind.
    `files` are the project-relative files imported (for a bibliography)."""
    site: dict[str, Any] = {}
    website = project.get("website")
    website = website if isinstance(website, dict) else {}
    title = website.get("title") or listing_title
    if isinstance(title, str) and title.strip():
        site["title"] = title.strip()
    _address(project, website.get("site-url"), site)
    description = website.get("description") or listing_description
    if isinstance(description, str) and description.strip():
        site["description"] = " ".join(description.split())
    for key in ("lang", "author"):
        value = project.get(key)
        if key == "lang" and isinstance(value, str) and _LANGUAGE.fullmatch(value):
            site["language"] = value
        elif key == "author" and isinstance(value, str) and value.strip():
            site["author"] = value.strip()
        elif value is not None:
            project.note(key, f"{key}: {value!r} has no counterpart here; not carried over")
    _listing(project, site)
    nav = navigation(project, url_of, title_of)
    if nav:
        site["nav"] = nav
    _repository(project, website, site)
    _bibliography(project, files, site)
    _left_behind(project, website)
    return site


def _address(project: Project, url: Any, site: dict[str, Any]) -> None:
    if url is None:
        return
    text = str(url).strip()
    text = text if text.endswith("/") else text + "/"
    problem = base_url_problem(text)
    if problem is None:
        site["base_url"] = text
    else:
        project.note("website.site-url", f"site-url {problem}; base_url left at its default")


def _listing(project: Project, site: dict[str, Any]) -> None:
    """The listing's page size and feed; remarks for its sort and customisation."""
    listing = project.listing
    page = project.listing_page
    if page is None:
        return
    where, line = page, project.listing_line

    def remark(what: str) -> None:
        project.remarks.append(Remark(where, line, what))

    sort = listing.get("sort")
    if sort not in (None, "date desc", ["date desc"]) and sort is not False:
        remark(f"listing sort {sort!r}: the posts are listed newest first here")
    size = listing.get("page-size")
    if isinstance(size, int) and not isinstance(size, bool) and size >= 1:
        site["posts_per_page"] = size
    elif size is not None:
        remark(f"listing page-size {size!r} is not a whole number; posts_per_page is 10")
    _feed(listing.get("feed"), site, remark)
    if listing.get("categories") is False:
        remark("listing categories: false: the posts' categories are tags here, with a "
               "page for each")
    for key in sorted(set(listing) - _LISTING_DONE):
        remark(f"listing customisation {key}: no counterpart; the list shows each post's "
               "title, date, description and tags")


def _feed(feed: Any, site: dict[str, Any], remark: Callable[[str], None]) -> None:
    if feed is None or feed is False:
        remark("the listing has no feed: blogbuild publishes /feed.xml all the same")
        return
    if not isinstance(feed, dict):
        return
    items = feed.get("items")
    if isinstance(items, int) and not isinstance(items, bool) and items >= 1:
        site["feed_entries"] = items
    kind = feed.get("type")
    if kind in ("partial", "metadata"):
        site["feed_content"] = "summary"
    elif kind == "full":
        site["feed_content"] = "full"
    for key in sorted(set(feed) - {"items", "type"}):
        remark(f"feed option {key}: no counterpart; the feed is /feed.xml (and one per tag)")


def navigation(project: Project, url_of: UrlOf, title_of: TitleOf) -> list[dict[str, str]]:
    """The navbar's left then right items as our nav: {title, url}."""
    navbar = project.get("website", "navbar")
    if not isinstance(navbar, dict):
        return []
    nav: list[dict[str, str]] = []
    for side in ("left", "right"):
        items = navbar.get(side)
        for i, item in enumerate(items if isinstance(items, list) else []):
            link = _nav_item(item, url_of, title_of)
            if isinstance(link, str):
                project.note(f"website.navbar.{side}[{i}]", link)
            else:
                nav.append(link)
    for key in sorted(set(navbar) - {"left", "right"}):
        project.note(f"website.navbar.{key}", f"navbar {key}: no counterpart; the header is "
                                              "the theme's")
    return nav


def _nav_item(item: Any, url_of: UrlOf, title_of: TitleOf) -> dict[str, str] | str:
    """A nav entry, or why the navbar item cannot be one."""
    if isinstance(item, str):
        item = {"href": item}
    if not isinstance(item, dict):
        return f"navbar item {item!r} is not a link; left out"
    if "menu" in item:
        return f"the navbar menu {item.get('text', '')!r} has no counterpart; left out"
    href = item.get("href")
    if not isinstance(href, str) or not href.strip():
        return f"navbar item {item!r} has no href; left out"
    url, rel = _nav_url(href.strip(), url_of)
    if url is None:
        return f"navbar link {href!r}: no imported page is there; left out"
    title = item.get("text")
    if isinstance(title, str) and "{{<" in title:  # an icon's shortcode: its title, if any
        named = _NAMED.search(title)
        title = named[1] if named else None
    title = title or item.get("aria-label")
    if not title and isinstance(item.get("icon"), str):
        title = item["icon"].capitalize()
    if not isinstance(title, str) or not title.strip():
        title = title_of(rel) or _title_of_href(href)
    return {"title": " ".join(title.split()), "url": url}


def _title_of_href(href: str) -> str:
    """A title for a link that has none: its file's name, in words."""
    stem = href.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem.replace("-", " ").replace("_", " ").capitalize() or "Home"


def _nav_url(href: str, url_of: UrlOf) -> tuple[str | None, str]:
    """The new URL of a navbar link, and the document it names ("" for none)."""
    if "://" in href or href.startswith("mailto:"):
        good = is_allowed_url(href) and url_problem(href) is None
        return (href if good else None), ""
    path, _, anchor = href.partition("#")
    rel = path.lstrip("/").removeprefix("./")
    if rel.endswith(".html"):
        rel = next((rel[:-5] + s for s in (".qmd", ".md", ".ipynb")
                    if url_of(rel[:-5] + s) is not None), rel)
    url = url_of(rel) if rel else "/"
    if url is None or not is_allowed_url(url):
        return None, rel
    return url + (f"#{anchor}" if anchor else ""), rel


def _repository(project: Project, website: dict[str, Any], site: dict[str, Any]) -> None:
    url = website.get("repo-url")
    if not isinstance(url, str):
        return
    match = _GITHUB.match(url.strip())
    extra = site.setdefault("extra", {})
    extra["repo_url"] = url.strip()
    if match is None:
        return
    notebooks: dict[str, str] = {"repository": match[1]}
    for key, ours in (("repo-branch", "branch"), ("repo-subdir", "folder")):
        if isinstance(website.get(key), str):
            notebooks[ours] = website[key]
    site["notebooks"] = notebooks


def _bibliography(project: Project, files: set[str], site: dict[str, Any]) -> None:
    value = project.get("bibliography")
    if value is None:
        return
    names = value if isinstance(value, list) else [value]
    found = [f"content/{n.lstrip('/')}" for n in names
             if isinstance(n, str) and n.lstrip("/") in files]
    if len(found) < len(names):
        project.note("bibliography", "a bibliography of _quarto.yml is not a file of the "
                                     "project; left out")
    if found:
        site["bibliography"] = found if len(found) > 1 else found[0]


def _left_behind(project: Project, website: dict[str, Any]) -> None:
    """A remark for each setting of _quarto.yml that nothing above carried over."""
    for key in sorted(set(website) - _WEBSITE_DONE):
        why = _WEBSITE_WHY.get(key, "no counterpart here")
        project.note(f"website.{key}", f"website {key}: not carried over ({why})")
    formats = project.get("format")
    for name, options in (formats.items() if isinstance(formats, dict) else []):
        if name != "html":
            project.note(f"format.{name}", f"format {name}: only HTML pages are made here")
            continue
        for key in sorted(options) if isinstance(options, dict) else []:
            what = ("the theme, CSS and SCSS: blogbuild's theme applies (see Themes to "
                    "make your own)") if key in ("theme", "css", "scss") else \
                "a format option with no counterpart here"
            project.note(f"format.html.{key}", f"format html {key}: not carried over ({what})")
    if project.get("filters"):
        project.note("filters", "filters (Lua) are not run here; what they do to a page is "
                                "lost")
    for key in ("profile", "metadata-files"):
        if project.get(key) is not None:
            project.note(key, f"{key}: not carried over (only _quarto.yml itself is read)")


def project_metadata(project: Project) -> dict[str, Any]:
    """The metadata _quarto.yml gives every document (`execute:`, `toc:`, a key its pages
    read with {{< meta >}}…): what content/_metadata.yml holds for the same effect."""
    return {key: value for key, value in project.settings.items()
            if key not in _NOT_METADATA}


def metadata_yaml(metadata: dict[str, Any]) -> str:
    """The text of content/_metadata.yml made from `project_metadata`."""
    head = ("# The metadata every document had from _quarto.yml, written by `blogbuild\n"
            "# import quarto`: a folder's _metadata.yml and a document's front matter win.\n")
    return head + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=100)


def site_yaml(site: dict[str, Any]) -> str:
    """The text of site.yaml: a comment saying where it came from, then the values."""
    head = ("# Written by `blogbuild import quarto` from the project's _quarto.yml; every\n"
            "# other setting keeps its default (see docs/configuration.md).\n")
    return head + yaml.safe_dump(site, sort_keys=False, allow_unicode=True, width=100)
