"use strict";
// Progressive enhancement of every table[data-enhance]: sortable headers, a filter form, a count.
// The page reads the same without it. Initial state may come from the query string:
// ?sort=final (ascending) or ?sort=-final (descending), ?group=selected, ?q=text.
(function () {
  var params = new URLSearchParams(location.search);
  function value(row, column) {
    var cell = row.cells[column];
    if (!cell) return "";
    return cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
  }
  function enhance(table) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var texts = new Map();
    var form = document.querySelector('form[data-controls-for="' + table.id + '"]');
    var count = form ? form.querySelector("output") : null;
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    function sortBy(th, descending) {
      var column = headers.indexOf(th), numeric = th.getAttribute("data-sort") === "num";
      var keyed = rows.map(function (row, i) {
        var v = value(row, column);
        return { row: row, i: i, empty: v === "", v: numeric ? Number(v) : v };
      });
      keyed.sort(function (a, b) {
        if (a.empty !== b.empty) return a.empty ? 1 : -1;
        var c = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
        return (descending ? -c : c) || a.i - b.i;
      });
      var fragment = document.createDocumentFragment();
      keyed.forEach(function (k) { fragment.appendChild(k.row); });
      body.appendChild(fragment);
      headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    }
    headers.forEach(function (th) {
      if (!th.hasAttribute("data-sort")) return;
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        sortBy(th, th.getAttribute("aria-sort") === "ascending");
      });
    });
    function filter() {
      if (!form) return;
      var group = form.elements.group.value, q = form.elements.q.value.trim().toLowerCase(), shown = 0;
      rows.forEach(function (row) {
        var text = texts.get(row);
        if (text === undefined && q) { text = row.textContent.toLowerCase(); texts.set(row, text); }
        var ok = (!group || row.classList.contains(group)) && (!q || text.indexOf(q) !== -1);
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      if (count) count.textContent = "showing " + shown + " of " + rows.length;
    }
    if (form) {
      form.hidden = false;
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      form.addEventListener("input", filter);
      if (params.has("group")) form.elements.group.value = params.get("group");
      if (params.has("q")) form.elements.q.value = params.get("q");
      // Untouched rows cost nothing: filter on load only when the address asks for it.
      if (params.has("group") || params.has("q")) filter();
      else if (count) count.textContent = "showing " + rows.length + " of " + rows.length;
    }
    var sort = params.get("sort");
    if (sort) {
      var name = sort.replace(/^-/, "");
      var th = headers.filter(function (h) { return h.getAttribute("data-key") === name; })[0];
      if (th && th.hasAttribute("data-sort")) sortBy(th, sort.charAt(0) === "-");
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("table[data-enhance]"), enhance);
  document.documentElement.setAttribute("data-enhanced", String(Math.round(performance.now())));
})();
