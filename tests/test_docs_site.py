"""``sphragis docs``: the static site documents every raw table, seed and model with
its columns and lineage, and works in a real browser.

* ``test_site_on_the_tiny_warehouse``: the site built from the models and the hand-made variation
  warehouse of ``test_variation`` (fast; no Chromium needed);
* ``test_site_in_headless_chromium`` (integration): the site built from the real warehouse, or
  the folder named by ``SPHRAGIS_DOCS_SITE`` (``make docs-check`` points it at ``site/``), opened
  in headless Chromium (Debian's ``chromium`` + ``chromium-driver``, via selenium): every page
  reached by following internal links from ``index.html``, no console error, no broken link or
  anchor, no resource from outside the site, no raw HTML comment shown as text, no page wider than
  the window (a wide table scrolls in its own box); the search box and the category picker work;
  screenshots of the index, a model page and the variation page go to ``reports/``. The crawl
  reads the site over HTTP from a local server (cacheable responses: Chromium compiles the 1.6 MB
  layout bundle once, not on each of ~190 pages as from file://); one page of every kind, the
  search box and the picker are then opened from disk (file://), as users open the site. Skipped,
  with the reason, when Chromium, its driver or selenium is absent.
* ``test_leaderboard_in_headless_chromium``: the leaderboard page of a scored export shows the
  ranking columns first, in view, and its wide table scrolls inside its own box.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import duckdb
import pytest
from test_variation import MODELS, _warehouse

from sphragis import config, runner
from sphragis.workbench import catalog, site

REPORTS = config.REPO_ROOT / "reports"
SCREENSHOTS = {"index.html": "docs_index.png", "model/mart_variation.html": "docs_model_mart_variation.png",
               "variation.html": "docs_variation.png"}


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory) -> tuple[Path, Path]:
    """(site folder, warehouse) for the hand-made warehouse with the four variation marts."""
    base = tmp_path_factory.mktemp("docs")
    wh = base / "tiny.duckdb"
    project = runner.load_project()
    con = _warehouse(wh)
    for name in MODELS:
        con.execute(f"create table {name} as {runner.render(project, name, {'min_cell_tokens': 10})}")
    con.close()
    rep = site.build_site(base / "site", warehouse=wh)
    return rep["out"], wh


def test_site_on_the_tiny_warehouse(tiny_site):
    out, wh = tiny_site
    project = runner.load_project()
    raw = catalog.raw_tables()
    assert {"raw_files", "raw_sentences", "raw_tokens"} <= set(raw)
    # one page per model, seed and raw table, each with a columns section and its lineage
    for name, model in project.models.items():
        html = (out / "model" / f"{name}.html").read_text(encoding="utf-8")
        assert f"<h1>{name} " in html and 'id="columns"' in html and 'id="lineage"' in html
        for ref in model.refs:
            assert f'href="../{"model" if ref in project.models else "seed"}/{ref}.html"' in html
        for col in project.schema.get(name, {}).get("columns", []) or []:
            assert f'<tr id="col-{col["name"]}">' in html
    for name in project.seeds:
        assert 'id="columns"' in (out / "seed" / f"{name}.html").read_text(encoding="utf-8")
    for name, node in raw.items():
        html = (out / "raw" / f"{name}.html").read_text(encoding="utf-8")
        assert all(f'<tr id="col-{c["name"]}">' in html for c in node.columns)
    # a documented data test and the upstream/downstream of mart_variation
    mv = (out / "model" / "mart_variation.html").read_text(encoding="utf-8")
    assert "accepted_values: convention, style" in mv
    assert 'href="../model/mart_rates.html"' in mv and 'href="../consumer/report.html"' in mv
    # rows and sample rows from the warehouse
    con = duckdb.connect(str(wh), read_only=True)
    n = con.execute("select count(*) from mart_variation").fetchone()[0]
    first = con.execute("select kind, scheme, category from mart_variation limit 1").fetchone()
    con.close()
    assert f"<dt>rows</dt><dd>{n:,}</dd>" in mv
    assert "<tr><td>{}</td><td>{}</td><td>{}</td>".format(*first) in mv
    # the variation page carries the marts' rows: pre-merge vocative is a convention, 5.0 pp vs 0.0 pp
    var = (out / "variation.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script id="variation-data" type="application/json">(.*?)</script>', var, re.S).group(1))
    voc = [v for v in data["variation"] if (v["kind"], v["scheme"], v["category"]) == ("deprel", "pre_merge", "vocative")]
    assert [(v["annotator_variation_pp"], v["authorial_variation_pp"], v["verdict"]) for v in voc] == [(5.0, 0.0, "convention")]
    assert [c[:2] for c in data["cells"]] == [["Alpha", "agdt"], ["Alpha", "ud_perseus"], ["Beta", "agdt"],
                                              ["Beta", "ud_perseus"], ["Gamma", "agdt"]]
    # the analyses ran on the warehouse
    an = (out / "analyses.html").read_text(encoding="utf-8")
    assert all(f'id="{a}"' in an for a in ("author_project_cells", "deprel_convention_vs_style", "top_annotator_gaps"))
    assert 'class="error"' not in an
    # an analysis of a table this (partial) warehouse lacks is not run, and says so
    assert 'id="upos_per_project"' in an and "Not run: the warehouse has no tokens" in an
    # the repository's docs/ are published with the dictionary, their comments left out
    # (the generated pages' header would show as text: the renderer escapes raw HTML)
    for p in (out / "docs").glob("*.html"):
        assert "&lt;!--" not in p.read_text(encoding="utf-8"), p
    spec = (out / "docs" / "spec.html").read_text(encoding="utf-8")
    assert "§5.1 Project-neutral strings" in spec and 'href="docs/index.html"' in (out / "index.html").read_text(
        encoding="utf-8")
    # offline: no absolute URL in any page or script of the site
    for p in out.rglob("*.html"):
        assert not re.search(r'(?:src|href)="(?:https?:)?//', p.read_text(encoding="utf-8")), p


def test_missing_manifest_falls_back_and_a_manifest_is_used(tmp_path):
    """With a build manifest beside the warehouse, its descriptions and edges are used."""
    wh = tmp_path / "warehouse.duckdb"
    doc = {"models": {"mart_variation": {"path": "models/marts/mart_variation.sql", "layer": "mart",
                                         "materialized": "table", "description": "From the manifest.",
                                         "columns": [{"name": "verdict", "description": "v", "tests": ["not_null"]}],
                                         "depends_on": ["mart_rates"], "fingerprint": "abc123"}},
           "seeds": {}, "sources": {}, "tests": [], "edges": [["mart_rates", "mart_variation"]]}
    assert catalog.build_catalog(wh).origin == "runner.load_project"
    (tmp_path / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    cat = catalog.build_catalog(wh)
    mv = cat.nodes["mart_variation"]
    assert cat.origin.startswith("manifest ")
    assert mv.description == "From the manifest." and mv.fingerprint == "abc123"
    assert mv.upstream == ["mart_rates"] and "mart_variation" in cat.nodes["mart_rates"].downstream
    assert mv.sql.startswith(runner.load_project().models["mart_variation"].template[:40])


# --------------------------------------------------------------------------------------------
# the real browser


def _browser():
    """A headless Chromium driven by selenium through Debian's chromedriver, or skip."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (make docs-check installs it)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip("Chromium or chromedriver absent: apt-get install chromium chromium-driver (make docs-check)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(executable_path=driver))


@pytest.fixture(scope="module")
def site_dir(request, tmp_path_factory) -> Path:
    if os.environ.get("SPHRAGIS_DOCS_SITE"):
        d = Path(os.environ["SPHRAGIS_DOCS_SITE"]).resolve()
        if not (d / "index.html").is_file():
            pytest.fail(f"SPHRAGIS_DOCS_SITE={d} has no index.html: run `sphragis docs` first")
        return d
    settings = request.getfixturevalue("real_settings")
    request.getfixturevalue("real_build")
    return site.build_site(tmp_path_factory.mktemp("site") / "site", warehouse=settings.warehouse)["out"]


class _CachedSite(SimpleHTTPRequestHandler):
    """The site's files, cacheable for an hour: Chromium then keeps the layout bundle (1.6 MB) and
    its compiled code between pages, where from file:// it reads and compiles it on every page."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def _served(root: Path) -> Iterator[str]:
    """Serve ``root`` over HTTP on 127.0.0.1 (a free port) while the block runs; yields its base
    URL (``http://127.0.0.1:<port>/``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_CachedSite, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _local(url: str, root: Path, base: str) -> tuple[Path, str] | None:
    """(file, fragment) of a URL inside the site ``root`` read at ``base`` (its HTTP address,
    :func:`_served`, or its file:// URL), else None."""
    u, frag = urldefrag(url)
    if not u.startswith(base):
        return None
    path = root / unquote(urlparse(u).path)[len(unquote(urlparse(base).path)):]
    return (path, frag) if path.resolve().is_relative_to(root) else None


def _drawn(driver, rel: str) -> None:
    """Wait until the page has loaded and lineage.js has drawn every picture (and, on
    variation.html, plotly its three charts)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    WebDriverWait(driver, 120).until(lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('div[data-lineage]')).every(b => b.getAttribute('data-ready'))"))
    if rel == "variation.html":
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3"))


def _console_errors(driver, where: str) -> list[str]:
    """The console's errors since the last call, each prefixed with ``where``."""
    return [f"{where}: {e['message']}" for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _crawl(driver, root: Path, base: str, todo: list[Path], visited: dict[Path, set[str]],
           wanted: list[tuple[Path, str, Path]], broken: list[str], errors: list[str]) -> None:
    """Open every page reached by links from ``todo``, over the site's HTTP server ``base``: the
    ids on each page into ``visited``, the fragments linked into ``wanted`` (page, fragment, linked
    from), each missing target or reference outside the site into ``broken``, console errors into
    ``errors``; screenshots of :data:`SCREENSHOTS` to ``reports/``."""
    while todo:
        page = todo.pop()
        if page in visited:
            continue
        rel = page.relative_to(root).as_posix()
        driver.get(base + rel)
        _drawn(driver, rel)
        visited[page] = set(driver.execute_script(
            "return Array.from(document.querySelectorAll('[id]')).map(e => e.id)"))
        # every reference of the page: links, scripts, stylesheets, images
        refs = driver.execute_script(  # getAttribute: SVG <a> elements have no string .href
            "const abs = (e, k) => new URL(e.getAttribute(k), document.baseURI).href;"
            "return Array.from(document.querySelectorAll('a[href]')).map(a => ['a', abs(a, 'href')])"
            ".concat(Array.from(document.querySelectorAll('script[src], img[src]')).map(e => ['src', abs(e, 'src')]))"
            ".concat(Array.from(document.querySelectorAll('link[href]')).map(e => ['link', abs(e, 'href')]))")
        for kind, url in refs:
            if url.startswith("data:"):
                continue
            loc = _local(url, root, base)
            if loc is None:
                broken.append(f"{rel}: reference outside the site: {url}")
                continue
            target, frag = loc
            if not target.is_file():
                broken.append(f"{rel}: broken {kind} {url}")
            elif kind == "a" and target.suffix == ".html":
                todo.append(target)
                if frag:
                    wanted.append((target, frag, page))
        errors += _console_errors(driver, rel)
        # what a reader sees: no raw comment as text (the generated docs pages' header), and no
        # page wider than the window (a wide table scrolls inside its own box)
        shown, page_width, window = driver.execute_script(
            "return [document.body.innerText, document.documentElement.scrollWidth, window.innerWidth]")
        if "<!--" in shown or "-->" in shown:
            broken.append(f"{rel}: shows a raw HTML comment as text")
        if page_width > window + 1:
            broken.append(f"{rel}: the page is {page_width} px wide in a {window} px window")
        if rel in SCREENSHOTS:
            if rel == "variation.html":  # the whole page: all three charts
                height = driver.execute_script("return document.documentElement.scrollHeight")
                driver.set_window_size(1400, min(height, 4200))
            driver.save_screenshot(str(REPORTS / SCREENSHOTS[rel]))
            driver.set_window_size(1400, 1000)


@pytest.mark.integration
def test_site_in_headless_chromium(site_dir):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = _browser()
    root = site_dir.resolve()
    errors: list[str] = []
    broken: list[str] = []
    visited: dict[Path, set[str]] = {}  # page → ids on it
    wanted: list[tuple[Path, str, Path]] = []  # (page, fragment, linked from)
    todo = [root / "index.html"]
    REPORTS.mkdir(exist_ok=True)
    try:
        with _served(root) as base:
            _crawl(driver, root, base, todo, visited, wanted, broken, errors)
        for target, frag, page in wanted:
            if frag not in visited.get(target, set()):
                broken.append(f"{page.relative_to(root)}: no element #{frag} in {target.relative_to(root)}")

        # from disk, as users open the site: one page of every kind (each folder's first, each page
        # at the top) is drawn without a console error
        kinds = {p for p in visited if p.parent == root} | {min(p for p in visited if p.parent == d)
                                                           for d in {p.parent for p in visited} - {root}}
        for page in sorted(kinds):
            rel = page.relative_to(root).as_posix()
            driver.get(page.as_uri())
            _drawn(driver, rel)
            errors += _console_errors(driver, f"{rel} (file://)")

        # the search box finds a column and a table; Enter opens the first hit
        driver.get((root / "index.html").as_uri())
        box = driver.find_element(By.ID, "search")
        box.send_keys("annotator_variation_pp")
        hits = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#search-results a")]
        assert any(h.startswith("mart_variation (mart)") for h in hits), hits
        box.clear()
        box.send_keys("mart_rat\n")
        WebDriverWait(driver, 10).until(lambda d: d.current_url.endswith("model/mart_rates.html"))

        # the category picker redraws the heatmap for the chosen category
        driver.get((root / "variation.html").as_uri())
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.querySelectorAll('#chart-rates .main-svg').length > 0"))
        title = driver.execute_script(
            "var s = document.getElementById('r-category'); s.value = Array.from(s.options)"
            ".map(o => o.value).filter(v => v.startsWith('deprel|pre_merge|vocative'))[0];"
            "s.dispatchEvent(new Event('change')); return document.querySelector('#chart-rates .gtitle').textContent")
        assert title == "vocative (deprel, pre_merge)"
        for entry in driver.get_log("browser"):
            if entry["level"] in ("SEVERE", "ERROR"):
                errors.append(f"interaction: {entry['message']}")
    finally:
        driver.quit()
    expected = {root / "index.html", root / "variation.html", root / "analyses.html"}
    expected |= {root / p.relative_to(root) for p in root.glob("*/*.html")}
    assert expected - set(visited) == set(), "pages not reachable by links from index.html"
    assert broken == []
    assert errors == []
    for name in SCREENSHOTS.values():
        assert (REPORTS / name).stat().st_size > 10_000


# --------------------------------------------------------------------------------------------
# the lineage picture: laid out by ELK in the page, fitted, focus view


def _lineage_data(html: str) -> list[dict]:
    """The graph a page hands to lineage.js (every lineage frame of the page, in order)."""
    return [json.loads(m.replace("<\\/", "</")) for m in
            re.findall(r'<script type="application/json" class="lineage-data">(.*?)</script>', html, re.S)]


def _plus(edges: list, name: str) -> set[str]:
    """dbt's +name+: name, its ancestors and its descendants."""
    out = {name}
    for a, b in ((0, 1), (1, 0)):
        todo = [name]
        while todo:
            n = todo.pop()
            for e in edges:
                if e[a] == n and e[b] not in out | {name}:
                    out.add(e[b])
                    todo.append(e[b])
    return out


def test_lineage_is_the_catalog_graph_with_its_layout_library(tiny_site):
    """The index hands every node and edge of the catalog to lineage.js, a table's page its
    neighbourhood; the layout library (elkjs) and its license are in the site's assets."""
    out, wh = tiny_site
    cat = catalog.build_catalog(wh)
    (full,) = _lineage_data((out / "index.html").read_text(encoding="utf-8"))
    assert [n["id"] for n in full["nodes"]] == sorted(cat.nodes)
    assert {n["id"]: (n["layer"], n["href"]) for n in full["nodes"]} == {
        n.name: (n.layer, n.href) for n in cat.nodes.values()}
    assert full["edges"] == [list(e) for e in cat.edges()] and len(full["edges"]) > 200
    assert full["elk"]["elk.algorithm"] == "layered" and full["focus"] is None
    node = cat.nodes["int_units"]
    (local,) = _lineage_data((out / "model" / "int_units.html").read_text(encoding="utf-8"))
    assert {n["id"] for n in local["nodes"]} == {"int_units", *node.upstream, *node.downstream}
    assert local["focus"] == "int_units" and all(n["href"].startswith("../") for n in local["nodes"])
    assert sorted(map(tuple, local["edges"])) == sorted(
        e for e in cat.edges() if {*e} <= {"int_units", *node.upstream, *node.downstream})
    elk = (out / "assets" / "elk.bundled.js").read_text(encoding="utf-8")
    assert "ELK" in elk and len(elk) > 1_000_000
    assert (out / "assets" / "elkjs-LICENSE.md").read_text(encoding="utf-8").startswith("# Eclipse Public License - v 2.0")
    assert '<script src="assets/elk.bundled.js"></script>' in (out / "index.html").read_text(encoding="utf-8")


_TO_LINEAGE = "window.scrollTo(0, document.getElementById('lineage').offsetTop - 50)"
_READY = "return document.getElementById('lineage-box').getAttribute('data-ready')"
# per frame: the svg's size, the frame's, how many boxes and edges are drawn, the crossings, and
# any two node boxes that overlap or a label wider than its box
_GEOMETRY = """
var box = arguments[0] ? document.getElementById(arguments[0]) : document.querySelector('div[data-lineage]');
var svg = box.querySelector('svg.lineage'), rects = Array.from(svg.querySelectorAll('a[data-node] rect'));
var bad = [];
rects.forEach(function (r, i) {
  var a = r.getBBox(), t = r.parentNode.querySelector('text').getBBox();
  if (t.width > a.width || t.x < a.x) bad.push('label wider than its box: ' + r.parentNode.getAttribute('data-node'));
  rects.slice(i + 1).forEach(function (q) {
    var b = q.getBBox();
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
      bad.push('overlap: ' + r.parentNode.getAttribute('data-node') + ' / ' + q.parentNode.getAttribute('data-node'));
  });
});
var st = window.SphragisLineage.main();
return {w: parseFloat(svg.getAttribute('width')), h: parseFloat(svg.getAttribute('height')),
        natW: svg.viewBox.baseVal.width, natH: svg.viewBox.baseVal.height,
        frameW: box.clientWidth, frameH: parseFloat(getComputedStyle(box).maxHeight),
        nodes: Array.from(svg.querySelectorAll('a[data-node]')).map(function (a) { return a.getAttribute('data-node'); }).sort(),
        focused: Array.from(svg.querySelectorAll('a.focused')).map(function (a) { return a.getAttribute('data-node'); }),
        edges: svg.querySelectorAll('path[data-from]').length, crossings: parseInt(svg.getAttribute('data-crossings')),
        recount: st && box === st.box ? window.SphragisLineage.crossings(st.layout) : null, bad: bad,
        zoom: box.getAttribute('data-zoom')};
"""


def _fitted(g: dict) -> bool:
    """The picture exceeds neither the frame's width nor its height, and fills one of them or is
    drawn at 100 % (a small picture is not enlarged)."""
    return (g["w"] <= g["frameW"] and g["h"] <= g["frameH"]
            and (g["w"] >= g["frameW"] - 6 or g["h"] >= g["frameH"] - 6 or round(g["w"]) == round(g["natW"])))


def test_lineage_in_headless_chromium(request):
    """The index's lineage in a real browser: laid out by ELK with fewer than two crossings per
    edge (877 on 569 edges of the tiny site's graph; grandalf's layout it replaced drew 3.6 per
    edge), no two boxes overlapping and every label inside its box, opened
    zoomed to fit; the focus field and a click show
    +name+ alone, laid out anew and fitted; a second click opens the page; index.html?focus=NAME;
    a table's page draws its neighbourhood; no console error. The site is the tiny one, or the
    folder ``SPHRAGIS_DOCS_SITE`` names (the real build's, as ``make docs-check``). Screenshots of
    the index and of the focus view go to ``SPHRAGIS_SCREENSHOTS`` (default ``reports/``)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    given = os.environ.get("SPHRAGIS_DOCS_SITE")
    out = Path(given).resolve() if given else request.getfixturevalue("tiny_site")[0]
    (full,) = _lineage_data((out / "index.html").read_text(encoding="utf-8"))
    names, edges = sorted(n["id"] for n in full["nodes"]), [tuple(e) for e in full["edges"]]
    shots = Path(os.environ.get("SPHRAGIS_SCREENSHOTS") or REPORTS)
    shots.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    errors: list[str] = []

    def wait_ready(value: str) -> dict:
        WebDriverWait(driver, 180).until(lambda d: d.execute_script(_READY) in (value, "error"))
        assert driver.execute_script(_READY) == value
        return driver.execute_script(_GEOMETRY, "lineage-box")

    try:
        driver.get((out / "index.html").as_uri())
        g = wait_ready("all")
        assert g["nodes"] == names and g["edges"] == len(edges)
        assert g["bad"] == []
        assert g["crossings"] == g["recount"] and 0 < g["crossings"] < 2 * len(edges), g["crossings"]
        assert g["zoom"] == "fit" and _fitted(g), g
        driver.execute_script(_TO_LINEAGE)
        driver.save_screenshot(str(shots / "lineage_index.png"))
        print(f"lineage: {len(names)} nodes, {len(edges)} edges, {g['crossings']} crossings, "
              f"{g['w']:.0f}x{g['h']:.0f} px fitted in {g['frameW']} px")

        # the focus field: int_units with everything it reads and everything that reads it
        driver.execute_script("var i = document.getElementById('focus'); i.value = 'int_units';"
                              "i.dispatchEvent(new Event('change'));")
        g = wait_ready("focus:int_units")
        assert g["nodes"] == sorted(_plus(edges, "int_units")) and g["focused"] == ["int_units"]
        assert g["edges"] == sum(1 for u, d in edges if {u, d} <= set(g["nodes"]))
        assert g["bad"] == [] and _fitted(g) and g["crossings"] == g["recount"]
        assert driver.find_element(By.ID, "focus-open").get_attribute("href").endswith("model/int_units.html")

        # a click on a box focuses on it; a second click opens its page
        target = "mart_benchmark_rows"
        driver.find_element(By.CSS_SELECTOR, f'#lineage-box a[data-node="{target}"] text').click()
        g = wait_ready(f"focus:{target}")
        assert g["nodes"] == sorted(_plus(edges, target)) and g["focused"] == [target]
        assert g["bad"] == [] and _fitted(g)
        assert driver.find_element(By.ID, "focus").get_attribute("value") == target
        driver.execute_script(_TO_LINEAGE)
        driver.save_screenshot(str(shots / f"lineage_focus_{target}.png"))
        driver.find_element(By.CSS_SELECTOR, '.zoom button[data-zoom="1"]').click()  # 100 %: the focused box in view
        driver.execute_script(_TO_LINEAGE)
        driver.save_screenshot(str(shots / f"lineage_focus_{target}_100.png"))
        assert driver.execute_script(
            "var r = document.querySelector('#lineage-box a.focused rect').getBoundingClientRect(),"
            " b = document.getElementById('lineage-box').getBoundingClientRect();"
            "return r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom")
        driver.find_element(By.ID, "focus-clear").click()
        g = wait_ready("all")
        assert g["nodes"] == names and _fitted(g)
        driver.get((out / "index.html").as_uri() + f"?focus={target}")
        wait_ready(f"focus:{target}")
        driver.find_element(By.CSS_SELECTOR, f'#lineage-box a[data-node="{target}"] text').click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.endswith(f"model/{target}.html"))

        # a table's page: its neighbourhood, fitted
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.querySelector('div[data-lineage]').getAttribute('data-ready')") == "all")
        g = driver.execute_script(_GEOMETRY, None)
        near = {target} | {u for u, d in edges if d == target} | {d for u, d in edges if u == target}
        assert g["nodes"] == sorted(near) and g["focused"] == [target]
        assert g["bad"] == [] and _fitted(g)
        errors += [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    finally:
        driver.quit()
    assert errors == []


# --------------------------------------------------------------------------------------------
# the leaderboard page: the ranking columns first, the wide table scrolling in its own box


def test_leaderboard_in_headless_chromium(tmp_path):
    pytest.importorskip("sklearn", reason="sphragis score needs scikit-learn (extra 'audit')")
    import pyarrow.parquet as pq
    from test_audit import make_export

    from sphragis import cli
    from sphragis.benchmark import CONFIGS

    out = tmp_path / "export"
    for cfg in CONFIGS:
        make_export(out, 1, cfg, {"train": 4, "validation": 2, "test": 2})
    board = tmp_path / "board"
    board.mkdir()
    preds = board / "perfect.jsonl"  # beside its scored JSON: the leaderboard re-scores it
    with preds.open("w", encoding="utf-8") as fh:
        for cfg in CONFIGS:
            t = pq.read_table(out / "data" / cfg / "test-00000-of-00001.parquet", columns=["id", "author"])
            for i, a in zip(t.column("id").to_pylist(), t.column("author").to_pylist()):
                fh.write(json.dumps({"id": i, "config": cfg, "author": a}) + "\n")
    assert cli.main(["score", str(preds), "--out", str(out), "--name", "Perfect", "--json",
                     str(board / "perfect.json"), "--bootstrap", "99"]) == 0
    assert cli.main(["leaderboard", str(board), "--out", str(out)]) == 0
    root = site.build_site(tmp_path / "site", warehouse=tmp_path / "absent.duckdb", export=out)["out"]
    driver = _browser()
    try:
        driver.set_window_size(1000, 800)
        driver.get((root / "leaderboard.html").as_uri())
        heads, window, box, page_width = driver.execute_script(
            "const th = Array.from(document.querySelectorAll('table.board th'));"
            "const s = document.querySelector('table.board').parentElement;"
            "return [th.map(e => [e.textContent, e.getBoundingClientRect().right]), window.innerWidth,"
            " [s.scrollWidth, s.clientWidth, getComputedStyle(s).overflowX], document.documentElement.scrollWidth]")
    finally:
        driver.quit()
    names = [h for h, _right in heads]
    from sphragis import leaderboard

    ranking = 2 + len(leaderboard.TAIL_HEAD)
    assert names[:ranking] == ["#", "system", *leaderboard.TAIL_HEAD] and names[ranking:] == list(
        leaderboard_configs(out))
    assert all(right <= window for _h, right in heads[:ranking])  # the ranking columns are in view
    assert box[0] > box[1] and box[2] == "auto"  # the table is wider than its box, which scrolls
    assert page_width <= window + 1  # the page itself does not


def leaderboard_configs(out: Path) -> list[str]:
    """The configurations the leaderboard page shows after its ranking columns, in its order."""
    from sphragis import leaderboard

    return leaderboard.board(out)["configs"]
