// Search the course site (tools/site_search.py writes the index this reads).
//
// Every page's header holds a search form, hidden until this script runs, so a browser without
// scripts shows no dead box. On first use the script adds search-index.js with a <script> tag
// (which, unlike fetch(), also works from a file:// checkout), then lists the sections that hold
// every word typed, best first: a word in a page or section title counts ten times a word in the
// text. Keystrokes typed while the index loads are not lost: the last query runs once it arrives.
(function () {
  "use strict";
  var form = document.getElementById("search");
  var box = document.getElementById("search-box");
  var results = document.getElementById("search-results");
  var count = document.getElementById("search-count");
  if (!form || !box || !results || !count) return;
  form.hidden = false;
  var MAX_RESULTS = 12;
  var loading = false;

  function load(then) {
    if (window.CAFE_SEARCH) { then(); return; }
    load.waiting = then;
    if (loading) return;
    loading = true;
    count.textContent = "Loading the index…";
    var script = document.createElement("script");
    script.src = "search-index.js";
    script.onload = function () { if (load.waiting) load.waiting(); };
    script.onerror = function () { count.textContent = "The search index did not load."; };
    document.head.appendChild(script);
  }

  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // The text as HTML, every word typed wrapped in <mark>. Split first, escape each piece after,
  // so a word can never land inside an entity such as &amp;.
  function mark(text, words) {
    var pattern = new RegExp("(" + words.map(escapeRegExp).join("|") + ")", "gi");
    return text.split(pattern).map(function (piece, i) {
      return i % 2 ? "<mark>" + escapeHtml(piece) + "</mark>" : escapeHtml(piece);
    }).join("");
  }

  function snippet(text, words) {
    var lower = text.toLowerCase(), at = lower.indexOf(words[0]);
    var start = Math.max(0, at - 60), end = Math.min(text.length, start + 180);
    if (start > 0) start = text.indexOf(" ", start) + 1 || start;  // begin on a whole word
    var cut = (start > 0 ? "… " : "") + text.slice(start, end) + (end < text.length ? " …" : "");
    return mark(cut, words);
  }

  function score(entry, words) {
    var title = (entry.p + " " + entry.s).toLowerCase(), body = entry.x.toLowerCase(), total = 0;
    for (var i = 0; i < words.length; i++) {
      var inTitle = title.indexOf(words[i]) >= 0, hits = body.split(words[i]).length - 1;
      if (!inTitle && hits === 0) return 0;
      total += (inTitle ? 10 : 0) + Math.min(hits, 10);
    }
    return total;
  }

  function search() {
    var words = box.value.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; });
    results.innerHTML = "";
    if (!words.length) { count.textContent = ""; return; }
    var found = [];
    window.CAFE_SEARCH.forEach(function (entry) {
      var points = score(entry, words);
      if (points > 0) found.push([points, entry]);
    });
    found.sort(function (a, b) { return b[0] - a[0]; });
    count.textContent = found.length === 0 ? "No section holds every word." :
      found.length + (found.length === 1 ? " section" : " sections") +
      (found.length > MAX_RESULTS ? ", the first " + MAX_RESULTS + " shown" : "");
    found.slice(0, MAX_RESULTS).forEach(function (pair) {
      var entry = pair[1], item = document.createElement("li");
      item.innerHTML = '<a href="' + escapeHtml(entry.u) + '">' + mark(entry.p + " · " + entry.s, words) +
        '</a><span class="note">' + snippet(entry.x, words) + "</span>";
      results.appendChild(item);
    });
  }

  box.addEventListener("focus", function () { load(function () {}); });
  box.addEventListener("input", function () { load(search); });
  box.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { box.value = ""; search(); }
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); load(search); });
})();
