// neardup report: renders the view named by location.hash from the JSON
// data block. Every page-derived string goes through textContent or
// attribute setters (el() below), never innerHTML.
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("data").textContent);
  var app = document.getElementById("app");
  var PAGE = 100;
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else if (k === "onclick" || k === "oninput" || k === "onchange") e[k] = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) {
      if (c == null) return;
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }
  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function pct(x) { return (100 * x).toFixed(1) + "%"; }
  function bytes(n) {
    var u = ["B", "KB", "MB", "GB", "TB"], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : n) + " " + u[i];
  }
  function link(hash, text) { return el("a", { href: hash, text: text }); }
  function siteHash(name) { return "#/site/" + encodeURIComponent(name); }
  function clusterHash(i, m) {
    return "#/cluster/" + encodeURIComponent(D.clusters[i].id) + (m ? "/" + m : "");
  }
  function card(k, v) { return el("div", { cls: "card" }, [el("div", { cls: "v", text: v }), el("div", { cls: "k", text: k })]); }
  function tag(v) { return el("span", { cls: "tag " + v, text: v.replace("_", " ") }); }

  // A table whose rows are built lazily, PAGE at a time, with sorting.
  function table(cols, rows, opts) {
    opts = opts || {};
    var wrap = el("div");
    var state = { key: opts.sort, asc: !!opts.asc, shown: PAGE, rows: rows };
    var tbl = el("table", { "data-table": opts.name || "" });
    var more = el("button", { text: "Show more" });
    function draw() {
      tbl.textContent = "";
      var head = el("tr");
      cols.forEach(function (c) {
        var th = el("th", { cls: (c.num ? "num " : "") + (state.key === c.key ? "sorted" + (state.asc ? " asc" : "") : ""), text: c.title });
        if (c.key) th.onclick = function () {
          state.asc = state.key === c.key ? !state.asc : !!c.asc;
          state.key = c.key; sort(); draw();
        };
        head.appendChild(th);
      });
      tbl.appendChild(el("thead", null, [head]));
      var body = el("tbody");
      state.rows.slice(0, state.shown).forEach(function (r) {
        var tr = el("tr", opts.rowAttrs ? opts.rowAttrs(r) : null);
        cols.forEach(function (c) {
          var v = c.render ? c.render(r) : r[c.key];
          tr.appendChild(el("td", { cls: (c.num ? "num" : "") + (c.url ? " url" : "") }, [typeof v === "object" ? v : String(v)]));
        });
        body.appendChild(tr);
      });
      tbl.appendChild(body);
      more.style.display = state.rows.length > state.shown ? "" : "none";
      more.textContent = "Show more (" + fmt(state.rows.length - state.shown) + " left)";
    }
    function sort() {
      if (!state.key) return;
      var k = state.key, s = state.asc ? 1 : -1;
      state.rows = state.rows.slice().sort(function (a, b) {
        var x = a[k], y = b[k];
        return (x < y ? -1 : x > y ? 1 : 0) * s;
      });
    }
    more.onclick = function () { state.shown += PAGE; draw(); };
    wrap.filter = function (pred) { state.rows = rows.filter(pred); state.shown = PAGE; sort(); draw(); };
    sort(); draw();
    wrap.appendChild(tbl); wrap.appendChild(more);
    return wrap;
  }

  // Horizontal bars of duplicate rates, top sites by dropped pages (SVG).
  function rateChart(sites) {
    var top = sites.slice().sort(function (a, b) { return b.dropped - a.dropped; }).slice(0, 12);
    var rowH = 22, w = 640, left = 220, h = top.length * rowH + 6;
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("width", w); svg.setAttribute("height", h);
    svg.setAttribute("data-chart", "duplicate-rate");
    top.forEach(function (s, i) {
      var y = i * rowH + 3;
      var label = document.createElementNS(SVG, "text");
      label.setAttribute("x", left - 8); label.setAttribute("y", y + 13);
      label.setAttribute("text-anchor", "end");
      label.textContent = s.name.length > 32 ? s.name.slice(0, 31) + "\u2026" : s.name;
      var track = document.createElementNS(SVG, "rect");
      track.setAttribute("x", left); track.setAttribute("y", y + 3); track.setAttribute("width", w - left - 60);
      track.setAttribute("height", 12); track.setAttribute("rx", 6); track.setAttribute("fill", "#f1f3f5");
      var bar = document.createElementNS(SVG, "rect");
      bar.setAttribute("x", left); bar.setAttribute("y", y + 3);
      bar.setAttribute("width", Math.max(2, (w - left - 60) * s.duplicate_rate));
      bar.setAttribute("height", 12); bar.setAttribute("rx", 6); bar.setAttribute("fill", "#f08c00");
      var v = document.createElementNS(SVG, "text");
      v.setAttribute("x", w - 52); v.setAttribute("y", y + 13); v.textContent = pct(s.duplicate_rate);
      [label, track, bar, v].forEach(function (n) { svg.appendChild(n); });
    });
    return svg;
  }

  // What fired, for one verdict: "1,234 duplicates: 765 exact text, 373
  // chunks, 12 canonical URL"; each item tagged with its basis (a detector
  // of the chain, the content-evidence fallback, or the URL).
  function firedLine(kind, noun, list) {
    var total = list.reduce(function (n, c) { return n + c.pages; }, 0);
    var row = el("div", { cls: "fired-row", "data-fired-total": kind }, [el("strong", { text: fmt(total) + " " + noun + (total === 1 ? "" : "s") + (list.length ? ": " : "") })]);
    list.forEach(function (c, k) {
      if (k) row.appendChild(document.createTextNode(", "));
      row.appendChild(el("span", { cls: "fired " + c.basis, "data-fired": kind + "/" + c.detector, text: fmt(c.pages) + " " + c.label }));
    });
    return row;
  }
  function firedPanel(f, title) {
    return el("div", { cls: "panel", "data-view": "fired" }, [el("h2", { text: title }),
      firedLine("duplicate", "duplicate", f.duplicates),
      firedLine("near_duplicate", "near duplicate", f.near_duplicates),
      el("p", { cls: "muted fired-legend" }, [
        el("span", { cls: "fired detector", text: "detector" }), " a detector of the chain matched (exact text, simhash, chunks, a plugin) ",
        el("span", { cls: "fired content", text: "content evidence" }), " no detector matched; the page's own blocks were found in a kept page ",
        el("span", { cls: "fired url", text: "URL" }), " the URL decided, without comparing content: canonical link, redirect, same URL fetched again unchanged",
      ])]);
  }
  function firedSum(f, kind, basis) {
    return f[kind].reduce(function (n, c) { return n + (!basis || c.basis === basis ? c.pages : 0); }, 0);
  }

  function viewOverview() {
    var o = D.overview;
    app.appendChild(el("h1", { text: "Duplicate report" }));
    app.appendChild(el("div", { cls: "cards", "data-view": "overview" }, [
      card("pages", fmt(o.pages)), card("unique", fmt(o.unique)),
      // `duplicate` is a verdict (a copy up to trivial changes), reached by
      // any detector or by the URL; "What fired" below splits both verdicts.
      card("duplicates", fmt(o.duplicates)), card("near duplicates", fmt(o.near_duplicates)),
      card("duplicate rate", o.pages ? pct((o.duplicates + o.near_duplicates) / o.pages) : "0%"),
      card("clusters", fmt(o.clusters)), card("bytes saved of " + bytes(o.bytes_total), bytes(o.bytes_saved)),
      card("index entries saved", fmt(o.index_entries_saved)),
      // Kept, not dropped: a relation shown per site (viewSite).
      card("kept inside a larger page", fmt(o.contained)),
    ]));
    app.appendChild(firedPanel(o.fired, "What fired"));
    if (o.fetches) app.appendChild(el("div", { cls: "panel" }, [el("h2", { text: "Crawl" }),
      el("p", { text: fmt(o.fetches[0]) + " fetch attempts, " + fmt(o.fetches[1]) + " failed" })]));
    if (o.input_errors) app.appendChild(el("p", { cls: "note", text: fmt(o.input_errors) + " input records could not be read (see clusters.json)." }));
    app.appendChild(el("h2", { text: "Sites with the most duplicates" }));
    app.appendChild(el("div", { cls: "panel" }, [rateChart(D.sites), el("p", null, [link("#/sites", "All " + fmt(D.sites.length) + " sites \u2192")])]));
    var cfg = el("div", { cls: "panel" }, [el("h2", { text: "Configuration" })]);
    cfg.appendChild(o.config ? el("pre", { text: o.config }) : el("p", { cls: "muted", text: "config.toml not found: the run's configuration is unknown." }));
    app.appendChild(cfg);
  }

  function viewSites() {
    app.appendChild(el("h1", { text: "Sites (" + fmt(D.sites.length) + ")" }));
    app.appendChild(el("div", { cls: "panel" }, [rateChart(D.sites)]));
    var t = table([
      { key: "name", title: "Site", asc: true, render: function (s) { return link(siteHash(s.name), s.name); } },
      { key: "pages", title: "Pages", num: true, render: function (s) { return fmt(s.pages); } },
      { key: "dropped", title: "Dropped", num: true, render: function (s) { return fmt(s.dropped); } },
      { key: "duplicate_rate", title: "Duplicate rate", render: function (s) {
        return el("span", null, [el("span", { cls: "bartrack" }, [el("span", { cls: "bar", style: "width:" + (120 * s.duplicate_rate).toFixed(0) + "px" })]), pct(s.duplicate_rate)]);
      } },
      { key: "ndup", title: "Duplicates", num: true, render: function (s) { return fmt(s.ndup); } },
      { key: "nnear", title: "Near duplicates", num: true, render: function (s) { return fmt(s.nnear); } },
      { key: "ncontent", title: "By content evidence", num: true, render: function (s) { return fmt(s.ncontent); } },
      { key: "nurl", title: "By URL", num: true, render: function (s) { return fmt(s.nurl); } },
      { key: "nclusters", title: "Clusters", num: true },
      { key: "largest", title: "Largest cluster", num: true },
    ], D.sites.map(function (s) {
      s.nclusters = s.clusters.length;
      s.ndup = firedSum(s.fired, "duplicates"); s.nnear = firedSum(s.fired, "near_duplicates");
      s.ncontent = firedSum(s.fired, "duplicates", "content") + firedSum(s.fired, "near_duplicates", "content");
      s.nurl = firedSum(s.fired, "duplicates", "url") + firedSum(s.fired, "near_duplicates", "url");
      return s;
    }),
    { sort: "dropped", name: "sites", rowAttrs: function (s) { return { "data-site": s.name }; } });
    var f = el("input", { cls: "filter", placeholder: "Filter sites by name", type: "search" });
    f.oninput = function () { var q = f.value.toLowerCase(); t.filter(function (s) { return s.name.toLowerCase().indexOf(q) >= 0; }); };
    app.appendChild(f); app.appendChild(t);
  }

  function clusterTable(ids, name) {
    return table([
      { key: "id", title: "Cluster", asc: true, render: function (r) { return link(clusterHash(r.i), r.id); } },
      { key: "size", title: "Pages", num: true },
      { key: "url", title: "Representative URL", url: true },
      { key: "sitesText", title: "Sites" },
      { key: "hintText", title: "URL pattern", render: function (r) { return el("span", { cls: "hint", text: r.hintText }); } },
    ], ids.map(function (i) {
      var c = D.clusters[i];
      return { i: i, id: c.id, size: c.size, url: c.pages[0].url, sitesText: c.sites.join(", "),
        hintText: c.hints.map(function (h) { return h.text; }).join("; ") || "\u2014" };
    }), { sort: "size", name: name, rowAttrs: function (r) { return { "data-cluster": r.id }; } });
  }

  function viewSite(name) {
    var s = D.sites.filter(function (x) { return x.name === name; })[0];
    if (!s) { app.appendChild(el("p", { cls: "note", text: "No site named " + name + " in this report." })); return; }
    app.appendChild(el("h1", { text: s.name }));
    app.appendChild(el("div", { cls: "cards", "data-view": "site" }, [card("pages", fmt(s.pages)), card("dropped", fmt(s.dropped)),
      card("duplicate rate", pct(s.duplicate_rate)), card("clusters", fmt(s.clusters.length)), card("largest cluster", fmt(s.largest))]));
    app.appendChild(firedPanel(s.fired, "What fired on " + s.name));
    var hp = el("div", { cls: "panel" }, [el("h2", { text: "URL patterns behind the clusters" }),
      el("p", { cls: "muted", text: "What differs between the URLs of a cluster's pages: candidates for URL canonicalization rules (strip a parameter, fold a path variant)." })]);
    if (!s.hints.length) hp.appendChild(el("p", { cls: "muted", text: "No URL pattern: duplicates live under unrelated URLs." }));
    s.hints.slice(0, 20).forEach(function (h) {
      hp.appendChild(el("div", { "data-hint": h.hint.key }, [el("span", { cls: "hint", text: h.hint.text }), el("span", { cls: "muted", text: " \u2014 in " + fmt(h.clusters) + " cluster" + (h.clusters > 1 ? "s" : "") })]));
    });
    app.appendChild(hp);
    app.appendChild(el("h2", { text: "Clusters by size" }));
    app.appendChild(clusterTable(s.clusters, "site-clusters"));
    app.appendChild(containedPanel(s));
  }

  // Kept pages whose content is in a much larger page (verdict
  // `contained_in`): a relation between two kept pages, not a drop.
  function containedPanel(s) {
    var p = el("div", { cls: "panel", "data-view": "contained" }, [el("h2", { text: "Kept inside a larger page (" + fmt(s.contained.length) + ")" }),
      el("p", { cls: "muted", text: "Pages kept although their own content is in a much larger page (a chapter in its print view, a part of an all-in-one page): the focused page's URL is what a reader needs. Neither page is dropped." })]);
    if (!s.contained.length) { p.appendChild(el("p", { cls: "muted", text: "None on this site." })); return p; }
    p.appendChild(table([
      { key: "url", title: "Kept page", url: true },
      { key: "of_url", title: "Contained in", url: true },
      { key: "covered", title: "Covered", num: true, render: function (c) { return c.covered == null ? "\u2014" : pct(c.covered); } },
      { key: "reason", title: "Reason" },
    ], s.contained, { name: "contained", rowAttrs: function (c) { return { "data-contained": c.doc_id, "data-of": c.of }; } }));
    return p;
  }

  function viewCross() {
    var ids = [];
    D.clusters.forEach(function (c, i) { if (c.sites.length > 1) ids.push(i); });
    app.appendChild(el("h1", { text: "Cross-site clusters (" + fmt(ids.length) + ")" }));
    app.appendChild(el("p", { cls: "muted", text: "The same content on several sites: mirrors, syndication, scraped copies." }));
    if (!ids.length) app.appendChild(el("p", { text: "None in this run." }));
    else app.appendChild(clusterTable(ids, "cross"));
  }

  function words(s) { return s.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []; }

  // Whether a block was compared when its page was judged: its role when
  // the run recorded one (template and chrome were not), else whether the
  // extractor called it main content (outputs of older versions).
  function compared(b) { return b.role ? b.role === "compared" : b.main; }

  // One side of the diff: each block classified against the other page.
  function side(title, url, page, other) {
    var otherText = new Set(), otherWords = new Set();
    other.blocks.forEach(function (b) { if (compared(b)) { otherText.add(b.text); words(b.text).forEach(function (w) { otherWords.add(w); }); } });
    var box = el("div", { cls: "side", "data-side": title }, [el("h3", null, [title + ": ", el("span", { cls: "muted", text: url })])]);
    page.blocks.forEach(function (b) {
      var kind = b.role === "template" ? "template" : !compared(b) ? "boilerplate" : otherText.has(b.text) ? "shared" : "differs";
      var div = el("div", { cls: "block " + kind, "data-block": kind }, [el("span", { cls: "btag", text: b.tag })]);
      if (kind === "differs") {
        // Words of this block missing from the other page are marked, in
        // runs (spaces between two marked words join the run).
        var toks = b.text.split(/(\s+)/);
        var miss = toks.map(function (t) { var ws = words(t); return ws.length > 0 && ws.some(function (w) { return !otherWords.has(w); }); });
        toks.forEach(function (t, k) { if (!words(t).length && k > 0 && k < toks.length - 1) miss[k] = miss[k - 1] && miss[k + 1]; });
        var run = "", on = false;
        var flush = function () { if (run) div.appendChild(on ? el("mark", { text: run }) : document.createTextNode(run)); run = ""; };
        toks.forEach(function (t, k) { if (miss[k] !== on) { flush(); on = miss[k]; } run += t; });
        flush();
      } else div.appendChild(document.createTextNode(b.text));
      box.appendChild(div);
    });
    if (page.truncated) box.appendChild(el("p", { cls: "muted", text: "(text cut at 64 KB)" }));
    return box;
  }

  function viewCluster(id, m) {
    var i = -1;
    D.clusters.forEach(function (c, j) { if (c.id === id) i = j; });
    if (i < 0) { app.appendChild(el("p", { cls: "note", text: "No cluster " + id + " in this report." })); return; }
    var c = D.clusters[i];
    c.pages.forEach(function (p, k) { p.k = k; });
    app.appendChild(el("h1", { text: "Cluster " + c.id }));
    var on = [fmt(c.size) + " pages on "];
    c.sites.forEach(function (s, k) { if (k) on.push(", "); on.push(link(siteHash(s), s)); });
    if (c.hints.length) on.push(el("span", { cls: "muted" }, [" \u2014 URL pattern: "].concat(c.hints.map(function (h, k) { return el("span", { cls: "hint", text: (k ? "; " : "") + h.text }); }))));
    app.appendChild(el("p", null, on));
    // The "why" first: the side-by-side view, then every member.
    diffView(c, i, m);
    app.appendChild(el("h2", { text: "Members (" + fmt(c.pages.length) + ")" }));
    app.appendChild(table([
      { key: "k", title: "#", num: true, render: function (p) { return p.k ? link(clusterHash(i, p.k), String(p.k)) : "rep"; } },
      { key: "url", title: "URL", url: true },
      { key: "verdict", title: "Verdict", render: function (p) { return tag(p.verdict); } },
      { key: "similarity", title: "Similarity", num: true, render: function (p) { return p.k ? p.similarity.toFixed(3) : ""; } },
      { key: "containment", title: "Containment", num: true, render: function (p) { return p.k ? p.containment.toFixed(3) : ""; } },
      { key: "detector", title: "Detector" },
      { key: "reason", title: "Reason" },
    ], c.pages, { sort: "k", asc: true, name: "members", rowAttrs: function (p) { return { "data-member": p.doc_id }; } }));
  }

  function diffView(c, i, m) {
    app.appendChild(el("h2", { text: "Why it was flagged: representative vs member" }));
    if (D.texts_missing) { app.appendChild(el("p", { cls: "note", "data-note": "no-texts", text: D.texts_missing })); return; }
    var members = c.pages.slice(1).filter(function (p) { return D.texts[p.doc_id]; });
    var rep = D.texts[c.pages[0].doc_id];
    if (!rep || !members.length) { app.appendChild(el("p", { cls: "note", text: "No text kept for this cluster (texts.jsonl keeps the representative and the first 20 members of each cluster)." })); return; }
    var pick = members.filter(function (p) { return p.k === m; })[0] || members[0];
    var sel = el("select", { "aria-label": "member" });
    members.forEach(function (p) { var o = el("option", { value: String(p.k), text: "#" + p.k + " " + p.url }); if (p === pick) o.selected = true; sel.appendChild(o); });
    sel.onchange = function () { location.hash = clusterHash(i, sel.value); };
    app.appendChild(el("div", null, ["Member: ", sel, " ", tag(pick.verdict), " ", el("span", { cls: "muted", text: pick.detector + ": " + pick.reason })]));
    app.appendChild(el("div", { cls: "legend" }, [
      el("span", { cls: "l-shared", text: "shared block (on both pages)" }),
      el("span", { cls: "l-differs", text: "differing block" }),
      el("span", { cls: "l-mark", text: "words missing on the other side" }),
      el("span", { cls: "l-template", text: "site template (repeated on many pages, not compared)" }),
      el("span", { cls: "l-boiler", text: "boilerplate (outside the article, not compared)" }),
    ]));
    var mt = D.texts[pick.doc_id];
    app.appendChild(el("div", { cls: "diff", "data-diff": c.id }, [side("Representative", c.pages[0].url, rep, mt), side("Member #" + pick.k, pick.url, mt, rep)]));
  }

  function route() {
    var h = location.hash.replace(/^#\/?/, "");
    var parts = h.split("/").map(function (p) { try { return decodeURIComponent(p); } catch (e) { return p; } });
    app.textContent = "";
    var nav = parts[0] === "site" ? "sites" : parts[0] === "cluster" ? "" : (parts[0] || "overview");
    document.querySelectorAll("header nav a").forEach(function (a) { a.className = a.getAttribute("data-nav") === nav ? "active" : ""; });
    if (parts[0] === "sites") viewSites();
    else if (parts[0] === "site") viewSite(parts[1] || "");
    else if (parts[0] === "cluster") viewCluster(parts[1] || "", Number(parts[2]) || 0);
    else if (parts[0] === "cross") viewCross();
    else viewOverview();
    window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", route);
  route();
})();
