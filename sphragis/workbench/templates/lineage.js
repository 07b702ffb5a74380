// Lineage pictures (sphragis/workbench/lineage.py writes the graph as JSON into each
// div[data-lineage]): laid out by ELK layered (assets/elk.bundled.js, elkjs, EPL-2.0) and drawn
// as SVG here. Every picture: a box per node linking to its page, coloured by its layer (CSS class
// layer-<layer>), orthogonal edges, hover highlights a node's edges and neighbours. The index's
// picture (#lineage-box) opens zoomed to fit; a click on a box, or the focus field, shows that
// node with everything it reads and everything that reads it (dbt's +name+), laid out alone and
// fitted; a second click on the focused box opens its page (ctrl/shift/meta-click always does).
// window.SphragisLineage is the API the controls and the browser test use.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg", NODE_H = 22, FONT = "11.5px ui-monospace, 'DejaVu Sans Mono', monospace";
  var elk = null, ctx = null, uid = 0;

  function textWidth(s) {
    if (!ctx) { ctx = document.createElement("canvas").getContext("2d"); ctx.font = FONT; }
    return ctx.measureText(s).width;
  }
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }

  // ELK layout of the nodes `ids` (a set) of `data` and the edges among them:
  // Promise of {nodes: {id: {x, y, w, h}}, edges: [{u, d, pts: [[x, y], ...], junctions}], width, height}
  function layout(data, ids) {
    if (!elk) elk = new window.ELK();
    var nodes = data.nodes.filter(function (n) { return ids[n.id]; });
    var edges = data.edges.filter(function (e) { return ids[e[0]] && ids[e[1]]; });
    return elk.layout({
      id: "root", layoutOptions: data.elk,
      children: nodes.map(function (n) { return {id: n.id, width: Math.max(60, Math.ceil(textWidth(n.id)) + 16), height: NODE_H}; }),
      edges: edges.map(function (e, i) { return {id: "e" + i, sources: [e[0]], targets: [e[1]]}; })
    }).then(function (g) {
      var out = {nodes: {}, edges: [], width: g.width, height: g.height};
      g.children.forEach(function (c) { out.nodes[c.id] = {x: c.x, y: c.y, w: c.width, h: c.height}; });
      g.edges.forEach(function (e, i) {
        var pts = [];
        (e.sections || []).forEach(function (s) {
          [s.startPoint].concat(s.bendPoints || [], [s.endPoint]).forEach(function (p) { pts.push([p.x, p.y]); });
        });
        out.edges.push({u: edges[i][0], d: edges[i][1], pts: pts,
                        junctions: (e.junctionPoints || []).map(function (p) { return [p.x, p.y]; })});
      });
      return out;
    });
  }

  // an orthogonal polyline with rounded corners
  function pathOf(pts) {
    var d = "M " + pts[0][0].toFixed(1) + " " + pts[0][1].toFixed(1);
    for (var i = 1; i < pts.length; i++) {
      var p = pts[i];
      if (i < pts.length - 1) {
        var a = pts[i - 1], b = pts[i + 1];
        var la = Math.hypot(p[0] - a[0], p[1] - a[1]), lb = Math.hypot(b[0] - p[0], b[1] - p[1]);
        var r = Math.min(5, la / 2, lb / 2);
        if (r > 0.5) {
          d += " L " + (p[0] - (p[0] - a[0]) * r / la).toFixed(1) + " " + (p[1] - (p[1] - a[1]) * r / la).toFixed(1) +
               " Q " + p[0].toFixed(1) + " " + p[1].toFixed(1) + " " +
               (p[0] + (b[0] - p[0]) * r / lb).toFixed(1) + " " + (p[1] + (b[1] - p[1]) * r / lb).toFixed(1);
          continue;
        }
      }
      d += " L " + p[0].toFixed(1) + " " + p[1].toFixed(1);
    }
    return d;
  }

  // Edge crossings of a layout: points where two edges' polylines properly cross, over every pair
  // of edges that share no end node (edges leaving or entering one node may touch by design).
  function crossings(lay) {
    function side(p, q, r) { var v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]); return v > 1e-9 ? 1 : v < -1e-9 ? -1 : 0; }
    function cross(a, b, c, d) { return side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0; }
    var n = 0, es = lay.edges;
    for (var i = 0; i < es.length; i++) {
      for (var j = i + 1; j < es.length; j++) {
        var A = es[i], B = es[j];
        if (A.u === B.u || A.u === B.d || A.d === B.u || A.d === B.d) continue;
        for (var s = 0; s + 1 < A.pts.length; s++) {
          for (var t = 0; t + 1 < B.pts.length; t++) {
            if (cross(A.pts[s], A.pts[s + 1], B.pts[t], B.pts[t + 1])) n++;
          }
        }
      }
    }
    return n;
  }

  function draw(box, data, lay, focused) {
    var pad = 12, w = lay.width + 2 * pad, h = lay.height + 2 * pad, arrow = "arr" + (++uid);
    var svg = el("svg", {"class": "lineage", viewBox: [-pad, -pad, w, h].join(" "), width: w, height: h,
                         role: "img", "aria-label": "lineage: " + Object.keys(lay.nodes).length + " tables"});
    var defs = el("defs", {}, svg), m = el("marker", {id: arrow, viewBox: "0 0 10 10", refX: 10, refY: 5,
                                                       markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"}, defs);
    el("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: "#888"}, m);
    var ge = el("g", {"class": "edges", fill: "none", stroke: "#999", "stroke-width": 1}, svg);
    lay.edges.forEach(function (e) {
      el("path", {"data-from": e.u, "data-to": e.d, d: pathOf(e.pts), "marker-end": "url(#" + arrow + ")"}, ge);
    });
    var gn = el("g", {"class": "nodes", "font-family": "ui-monospace, 'DejaVu Sans Mono', monospace", "font-size": "11.5"}, svg);
    data.nodes.forEach(function (n) {
      var p = lay.nodes[n.id];
      if (!p) return;
      var a = el("a", {href: n.href, "data-node": n.id, "class": n.id === focused ? "focused" : ""}, gn);
      el("title", {}, a).textContent = n.layer + ": " + n.id;
      el("rect", {x: p.x, y: p.y, width: p.w, height: p.h, rx: 4, "class": "layer-" + n.layer}, a);
      el("text", {x: p.x + p.w / 2, y: p.y + p.h / 2 + 4, "text-anchor": "middle"}, a).textContent = n.id;
    });
    svg.setAttribute("data-crossings", crossings(lay));
    hover(svg);
    box.querySelectorAll("svg").forEach(function (s) { s.remove(); });
    box.appendChild(svg);
    return svg;
  }

  function hover(svg) {
    var paths = Array.prototype.slice.call(svg.querySelectorAll("path[data-from]"));
    var nodes = Array.prototype.slice.call(svg.querySelectorAll("a[data-node]"));
    nodes.forEach(function (a) {
      var name = a.getAttribute("data-node");
      a.addEventListener("mouseenter", function () {
        var near = {};
        near[name] = true;
        paths.forEach(function (p) {
          var on = p.getAttribute("data-from") === name || p.getAttribute("data-to") === name;
          p.classList.toggle("on", on);
          if (on) { near[p.getAttribute("data-from")] = true; near[p.getAttribute("data-to")] = true; }
        });
        nodes.forEach(function (n) { n.classList.toggle("near", !!near[n.getAttribute("data-node")]); });
        svg.classList.add("hl");
      });
      a.addEventListener("mouseleave", function () { svg.classList.remove("hl"); });
    });
  }

  // the zoom: "fit" = the whole picture inside the frame's width and its maximum height (never above 100 %)
  function zoom(box, label) {
    var svg = box.querySelector("svg.lineage");
    if (!svg) return;
    var vb = svg.getAttribute("viewBox").split(" ").map(parseFloat), z;
    if (label === "fit") {
      var maxH = parseFloat(getComputedStyle(box).maxHeight) || window.innerHeight;
      z = Math.min(1, (box.clientWidth - 4) / vb[2], (maxH - 4) / vb[3]);
    } else {
      z = parseFloat(label);
    }
    svg.setAttribute("width", Math.round(vb[2] * z));
    svg.setAttribute("height", Math.round(vb[3] * z));
    box.setAttribute("data-zoom", label);
    var f = svg.querySelector("a.focused rect");
    if (f && label !== "fit") {  // zoomed in: the focused box in the middle of the frame
      box.scrollLeft = (parseFloat(f.getAttribute("x")) - vb[0]) * z - box.clientWidth / 2;
      box.scrollTop = (parseFloat(f.getAttribute("y")) - vb[1]) * z - box.clientHeight / 2;
    }
    document.querySelectorAll(".zoom button").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-zoom") === label); });
  }

  // ancestors and descendants of `name` (dbt's +name+), as a set
  function closure(data, name) {
    var ids = {}, dirs = [[0, 1], [1, 0]];
    ids[name] = true;
    dirs.forEach(function (dir) {
      var seen = {}, todo = [name];
      while (todo.length) {
        var n = todo.pop();
        if (seen[n]) continue;
        seen[n] = true; ids[n] = true;
        data.edges.forEach(function (e) { if (e[dir[0]] === n) todo.push(e[dir[1]]); });
      }
    });
    return ids;
  }

  var boxes = [];
  function setup(box) {
    var data = JSON.parse(box.querySelector("script.lineage-data").textContent), cache = {};
    var all = {};
    data.nodes.forEach(function (n) { all[n.id] = true; });
    var state = {box: box, data: data, shown: null};
    function show(name) {
      var key = name || "";
      box.setAttribute("data-ready", "");
      if (!cache[key]) cache[key] = layout(data, name ? closure(data, name) : all);
      return cache[key].then(function (lay) {
        var svg = draw(box, data, lay, name || data.focus);
        state.shown = name; state.layout = lay;
        zoom(box, "fit");
        box.scrollTop = 0; box.scrollLeft = 0;
        if (box.id === "lineage-box") {
          svg.querySelectorAll("a[data-node]").forEach(function (a) {
            a.addEventListener("click", function (ev) {
              var n = a.getAttribute("data-node");
              if (ev.shiftKey || ev.ctrlKey || ev.metaKey || n === state.shown) return;  // open the page
              ev.preventDefault();
              focus(n);
            });
          });
        }
        box.setAttribute("data-ready", name ? "focus:" + name : "all");
        return svg;
      }).catch(function (err) {
        console.error("lineage layout failed", err);
        box.setAttribute("data-ready", "error");
      });
    }
    function focus(name) {
      var input = document.getElementById("focus");
      if (!name || !all[name]) name = null;
      if (input) input.value = name || "";
      var open = document.getElementById("focus-open");
      if (open) {
        open.hidden = !name;
        if (name) {
          var node = data.nodes.filter(function (n) { return n.id === name; })[0];
          open.setAttribute("href", node.href); open.textContent = "open " + name;
        }
      }
      return show(name);
    }
    state.show = show; state.focus = focus;
    boxes.push(state);
    return state;
  }

  function start() {
    document.querySelectorAll("div[data-lineage]").forEach(function (box) {
      var st = setup(box);
      if (box.id !== "lineage-box") { st.show(null); return; }
      var m = /[?&]focus=([^&#]+)/.exec(location.search);
      st.focus(m ? decodeURIComponent(m[1]) : null);
      document.querySelectorAll(".zoom button").forEach(function (b) {
        b.addEventListener("click", function () { zoom(box, b.getAttribute("data-zoom")); });
      });
      var input = document.getElementById("focus"), clear = document.getElementById("focus-clear");
      if (input) input.addEventListener("change", function () { st.focus(input.value.trim()); });
      if (clear) clear.addEventListener("click", function () { st.focus(null); });
    });
  }

  window.SphragisLineage = {
    crossings: crossings,
    // the state of the index's picture: {box, data, shown, layout, focus(name), show(name)}
    main: function () { return boxes.filter(function (s) { return s.box.id === "lineage-box"; })[0]; },
    zoom: zoom
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
