// Variation charts (plotly.js, assets/plotly.min.js); data from the page's #variation-data JSON
// (mart_variation rows; mart_rates as cells × categories). See sphragis/workbench/charts.py.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("variation-data").textContent);
  var COLORS = { convention: "#c0392b", style: "#2471a3", none: "#999999" };
  var config = { responsive: true, displaylogo: false };
  var kindSel = document.getElementById("v-kind"), schemeSel = document.getElementById("v-scheme");

  function filtered() {
    var k = kindSel.value, s = schemeSel.value;
    return data.variation.filter(function (v) {
      return (!k || v.kind === k) && (!s || v.scheme === s) &&
        v.annotator_variation_pp !== null && v.authorial_variation_pp !== null;
    });
  }
  function label(v) { return v.category + " (" + v.kind + ", " + v.scheme + ")"; }

  function drawScatter(rows) {
    var traces = ["convention", "style"].map(function (verdict) {
      var r = rows.filter(function (v) { return v.verdict === verdict; });
      return {
        type: "scatter", mode: "markers", name: verdict + " (" + r.length + ")",
        x: r.map(function (v) { return v.annotator_variation_pp; }),
        y: r.map(function (v) { return v.authorial_variation_pp; }),
        text: r.map(label),
        customdata: r.map(function (v) { return [v.excess_pp, v.mean_rate_pct, v.n_cells]; }),
        hovertemplate: "<b>%{text}</b><br>annotator %{x:.2f} pp<br>authorial %{y:.2f} pp<br>" +
          "excess %{customdata[0]:.2f} pp<br>mean rate %{customdata[1]:.2f} %<br>cells %{customdata[2]}<extra></extra>",
        marker: { color: COLORS[verdict], size: 8, opacity: 0.75,
                  symbol: r.map(function (v) { return v.scheme === "published" ? "circle" : "diamond-open"; }) }
      };
    });
    var top = 1;
    rows.forEach(function (v) { top = Math.max(top, v.annotator_variation_pp, v.authorial_variation_pp); });
    Plotly.react("chart-scatter", traces, {
      margin: { t: 30, r: 20 }, hovermode: "closest",
      xaxis: { title: { text: "annotator variation (pp)" }, rangemode: "tozero" },
      yaxis: { title: { text: "authorial variation (pp)" }, rangemode: "tozero" },
      shapes: [{ type: "line", x0: 0, y0: 0, x1: top, y1: top, line: { color: "#888", dash: "dash", width: 1 } }],
      annotations: [{ x: top, y: top, text: "annotator = authorial", showarrow: false, xanchor: "right", yanchor: "bottom", font: { color: "#666" } }],
      legend: { title: { text: "verdict (◇ pre-merge, ● published)" } }
    }, config);
  }

  function drawBars(rows) {
    var r = rows.slice().sort(function (a, b) { return a.excess_pp - b.excess_pp; });
    var y = r.map(label);
    var height = Math.max(420, 18 * r.length + 120);
    document.getElementById("chart-bars").style.height = height + "px";
    Plotly.react("chart-bars", [
      { type: "bar", orientation: "h", name: "annotator variation (red: convention, blue: style)", y: y,
        x: r.map(function (v) { return v.annotator_variation_pp; }),
        marker: { color: r.map(function (v) { return COLORS[v.verdict] || COLORS.none; }) },
        hovertemplate: "%{y}<br>annotator %{x:.2f} pp<extra></extra>" },
      { type: "bar", orientation: "h", name: "authorial variation", y: y,
        x: r.map(function (v) { return v.authorial_variation_pp; }),
        marker: { color: "#bbbbbb" }, hovertemplate: "%{y}<br>authorial %{x:.2f} pp<extra></extra>" }
    ], {
      barmode: "group", margin: { t: 30, l: 260, r: 20 }, xaxis: { title: { text: "percentage points" } },
      yaxis: { automargin: true, tickfont: { size: 10 } },
      legend: { orientation: "h", x: 0, y: 1.0, yanchor: "bottom" }
    }, config);
  }

  var catSel = document.getElementById("r-category");
  function fillCategories() {
    var k = kindSel.value, s = schemeSel.value, prev = catSel.value;
    catSel.innerHTML = "";
    data.categories.filter(function (c) { return (!k || c.kind === k) && (!s || c.scheme === s); })
      .forEach(function (c) {
        var o = document.createElement("option");
        o.value = c.key;
        o.textContent = c.category + " · " + c.kind + " · " + c.scheme + (c.verdict ? " · " + c.verdict : "");
        catSel.appendChild(o);
      });
    var keys = Array.prototype.map.call(catSel.options, function (o) { return o.value; });
    if (prev && keys.indexOf(prev) >= 0) { catSel.value = prev; return; }
    // default: the category with the largest excess of annotator over authorial variation
    var best = null;
    filtered().forEach(function (v) { if (!best || v.excess_pp > best.excess_pp) best = v; });
    var key = best ? [best.kind, best.scheme, best.category].join("|") : null;
    if (key && keys.indexOf(key) >= 0) catSel.value = key;
  }
  function drawRates() {
    var c = data.categories.filter(function (x) { return x.key === catSel.value; })[0];
    if (!c) { Plotly.purge("chart-rates"); return; }
    document.getElementById("r-verdict").textContent = c.verdict ? "verdict: " + c.verdict : "no verdict";
    var authors = [], projects = [];
    data.cells.forEach(function (cell) {
      if (authors.indexOf(cell[0]) < 0) authors.push(cell[0]);
      if (projects.indexOf(cell[1]) < 0) projects.push(cell[1]);
    });
    authors.sort(); projects.sort();
    var z = authors.map(function () { return projects.map(function () { return null; }); });
    var n = authors.map(function () { return projects.map(function () { return null; }); });
    data.cells.forEach(function (cell, i) {
      var a = authors.indexOf(cell[0]), p = projects.indexOf(cell[1]);
      z[a][p] = c.rates[i];
      n[a][p] = cell[2];
    });
    document.getElementById("chart-rates").style.height = Math.max(420, 22 * authors.length + 160) + "px";
    Plotly.react("chart-rates", [{
      type: "heatmap", x: projects, y: authors, z: z, customdata: n, colorscale: "Viridis",
      colorbar: { title: { text: "rate %" } }, texttemplate: "%{z:.2f}", hoverongaps: false,
      hovertemplate: "%{y} in %{x}<br>rate %{z:.3f} %<br>%{customdata:,} tokens<extra></extra>"
    }], { margin: { t: 90, l: 200 }, title: { text: c.category + " (" + c.kind + ", " + c.scheme + ")" },
          xaxis: { side: "top" }, yaxis: { automargin: true, autorange: "reversed" } }, config);
  }

  function redraw() {
    var rows = filtered();
    drawScatter(rows);
    drawBars(rows);
    fillCategories();
    drawRates();
  }
  kindSel.addEventListener("change", redraw);
  schemeSel.addEventListener("change", redraw);
  catSel.addEventListener("change", drawRates);
  kindSel.value = "deprel";
  redraw();
})();
