// The trajectory table: filter, sort and page rows held as JSON in the page (no network, no framework).
// Values from the store are untrusted: they only ever reach the page as text nodes (textContent),
// never as HTML. The filter state lives in the URL's fragment, so links from the overview land on a
// filtered table and a filtered view can be bookmarked.
(function () {
  "use strict";

  var PAGE_SIZE = 100;
  var FILTERS = ["domain", "label", "rounds", "run", "status"];
  var data = JSON.parse(document.getElementById("table-data").textContent);
  var col = {};
  data.columns.forEach(function (name, i) { col[name] = i; });
  var rows = data.rows;
  var haystack = rows.map(function (r) {
    return [r[col.task], r[col.domain], r[col.labels], r[col.diagnostic], r[col.status]].join("\n").toLowerCase();
  });
  var keys = rows.map(function (r) {  // filter values as strings, computed once
    return FILTERS.map(function (name) { return String(r[col[name]]); });
  });
  var state = { filters: {}, q: "", page: 0, sort: "id", dir: 1 };
  var matched = [];
  var body = document.getElementById("rows");
  var count = document.getElementById("match-count");
  var pageInfo = document.getElementById("page-info");

  function readHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    FILTERS.forEach(function (name) { state.filters[name] = params.get(name) || ""; });
    state.q = params.get("q") || "";
    state.page = Math.max(parseInt(params.get("page") || "1", 10) - 1, 0) || 0;
    state.sort = col.hasOwnProperty(params.get("sort")) ? params.get("sort") : "id";
    state.dir = params.get("dir") === "desc" ? -1 : 1;
    FILTERS.forEach(function (name) {
      var select = document.getElementById("f-" + name);
      var known = Array.prototype.some.call(select.options, function (o) { return o.value === state.filters[name]; });
      if (!known) { state.filters[name] = ""; }
      select.value = state.filters[name];
    });
    document.getElementById("f-text").value = state.q;
  }

  function writeHash() {
    var params = new URLSearchParams();
    FILTERS.forEach(function (name) { if (state.filters[name]) { params.set(name, state.filters[name]); } });
    if (state.q) { params.set("q", state.q); }
    if (state.page) { params.set("page", String(state.page + 1)); }
    if (state.sort !== "id" || state.dir !== 1) { params.set("sort", state.sort); params.set("dir", state.dir < 0 ? "desc" : "asc"); }
    var text = params.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }

  function filter() {
    var wanted = FILTERS.map(function (name) { return state.filters[name]; });
    var terms = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    matched = [];
    for (var i = 0; i < rows.length; i++) {
      var k = keys[i], ok = true;
      for (var f = 0; f < wanted.length && ok; f++) { ok = !wanted[f] || k[f] === wanted[f]; }
      for (var t = 0; t < terms.length && ok; t++) { ok = haystack[i].indexOf(terms[t]) !== -1; }
      if (ok) { matched.push(i); }
    }
    var c = col[state.sort], dir = state.dir;
    matched.sort(function (a, b) {
      var x = rows[a][c], y = rows[b][c];
      if (x === y) { return rows[a][col.id] - rows[b][col.id]; }
      if (typeof x === "number" && typeof y === "number") { return (x - y) * dir; }
      return String(x).localeCompare(String(y)) * dir;
    });
  }

  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "" : String(text);
    if (cls) { td.className = cls; }
    tr.appendChild(td);
    return td;
  }

  function row(r) {
    var tr = document.createElement("tr");
    var id = Number(r[col.id]);
    cell(tr, id, "n");
    var link = document.createElement("a");
    link.href = "t/" + (Number.isInteger(id) ? id : 0) + ".html";
    link.textContent = String(r[col.task]);
    cell(tr, "").appendChild(link);
    cell(tr, r[col.domain]);
    cell(tr, r[col.run], "n");
    cell(tr, r[col.sample], "n");
    cell(tr, r[col.status]);
    var badge = document.createElement("span");
    var label = String(r[col.label]);
    badge.className = "label " + (label === "Pass" ? "pass" : (label === "Infra_Error" || label === "No_Code" || label === "Truncated" || label === "-") ? "infra" : "fail");
    badge.textContent = label;
    cell(tr, "").appendChild(badge);
    cell(tr, r[col.rounds], "n");
    cell(tr, r[col.labels], "small");
    cell(tr, r[col.diagnostic], "diag");
    return tr;
  }

  function draw() {
    var pages = Math.max(Math.ceil(matched.length / PAGE_SIZE), 1);
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE_SIZE, end = Math.min(start + PAGE_SIZE, matched.length);
    var fragment = document.createDocumentFragment();
    for (var i = start; i < end; i++) { fragment.appendChild(row(rows[matched[i]])); }
    body.replaceChildren(fragment);
    count.textContent = String(matched.length);
    pageInfo.textContent = matched.length ? "rows " + (start + 1) + "–" + end + ", page " + (state.page + 1) + " of " + pages : "no rows";
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
    document.querySelectorAll("th[data-sort]").forEach(function (th) {
      th.classList.toggle("sorted-asc", th.dataset.sort === state.sort && state.dir > 0);
      th.classList.toggle("sorted-desc", th.dataset.sort === state.sort && state.dir < 0);
    });
  }

  // Filter and draw, timed: the time is kept on the table for tests and benchmarks to read.
  function update(keepPage) {
    var started = performance.now();
    if (!keepPage) { state.page = 0; }
    filter();
    draw();
    writeHash();
    document.getElementById("trajectory-table").dataset.filterMs = (performance.now() - started).toFixed(2);
  }

  FILTERS.forEach(function (name) {
    document.getElementById("f-" + name).addEventListener("change", function (event) {
      state.filters[name] = event.target.value;
      update(false);
    });
  });
  document.getElementById("f-text").addEventListener("input", function (event) {
    state.q = event.target.value;
    update(false);
  });
  document.getElementById("filters").addEventListener("reset", function () {
    FILTERS.forEach(function (name) { state.filters[name] = ""; });
    state.q = "";
    setTimeout(function () { update(false); }, 0);  // after the form has cleared its fields
  });
  document.getElementById("filters").addEventListener("submit", function (event) { event.preventDefault(); });
  document.getElementById("prev").addEventListener("click", function () { state.page -= 1; update(true); });
  document.getElementById("next").addEventListener("click", function () { state.page += 1; update(true); });
  document.querySelectorAll("th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () {
      state.dir = state.sort === th.dataset.sort ? -state.dir : 1;
      state.sort = th.dataset.sort;
      update(true);
    });
  });
  window.addEventListener("hashchange", function () { readHash(); update(true); });
  readHash();
  update(true);
}());
