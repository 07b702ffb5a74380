// Search box of every page: matches table names, descriptions and column names in
// window.SPHRAGIS_INDEX (assets/search-index.js); links are relative to the page (body data-root).
(function () {
  "use strict";
  var input = document.getElementById("search");
  var list = document.getElementById("search-results");
  var root = document.body.getAttribute("data-root") || "";
  var index = window.SPHRAGIS_INDEX || [];
  function score(e, q) {
    var n = e.n.toLowerCase();
    if (n === q) return 0;
    if (n.indexOf(q) === 0) return 1;
    if (n.indexOf(q) >= 0) return 2;
    if (e.c.toLowerCase().split(" ").indexOf(q) >= 0) return 3;
    if (e.c.toLowerCase().indexOf(q) >= 0) return 4;
    if (e.d.toLowerCase().indexOf(q) >= 0) return 5;
    return -1;
  }
  function show() {
    var q = input.value.trim().toLowerCase();
    list.innerHTML = "";
    if (!q) { list.hidden = true; return; }
    var hits = index.map(function (e) { return [score(e, q), e]; })
      .filter(function (x) { return x[0] >= 0; })
      .sort(function (a, b) { return a[0] - b[0] || a[1].n.localeCompare(b[1].n); })
      .slice(0, 30);
    hits.forEach(function (x, i) {
      var e = x[1], li = document.createElement("li"), a = document.createElement("a");
      a.href = root + e.h;
      a.textContent = e.n + " (" + e.l + ")";
      if (i === 0) a.className = "active";
      var s = document.createElement("small");
      s.textContent = x[0] >= 3 && x[0] <= 4 ? "column match" : e.d;
      a.appendChild(s);
      li.appendChild(a);
      list.appendChild(li);
    });
    if (!hits.length) {
      var li = document.createElement("li");
      li.textContent = "no match";
      li.style.padding = ".35rem .7rem";
      list.appendChild(li);
    }
    list.hidden = false;
  }
  input.addEventListener("input", show);
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    } else if (ev.key === "Escape") {
      input.value = ""; show();
    }
  });
  document.addEventListener("click", function (ev) {
    if (!list.contains(ev.target) && ev.target !== input) list.hidden = true;
  });
})();
