// Lineage pictures (sphragis/workbench/lineage.py): hovering a table highlights its edges and
// its direct neighbours and dims the rest.
(function () {
  "use strict";
  document.querySelectorAll("svg.lineage").forEach(function (svg) {
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
  });
})();
