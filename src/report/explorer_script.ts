/**
 * The inline script and style of the report explorer (ES2017, `textContent` only, `#item=ID` links).
 * @module
 */

export const EXPLORER_CSS = `
#explorer .bar { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0.6em 0; }
#explorer label { font-size: 0.9em; }
#explorer .cols { display: grid; grid-template-columns: minmax(180px, 260px) 1fr; gap: 16px; }
#explorer ul.items { list-style: none; margin: 0; padding: 0; max-height: 70vh; overflow-y: auto;
  border: 1px solid #d0d7de; border-radius: 4px; }
#explorer ul.items li a { display: block; padding: 3px 8px; color: #0550ae; text-decoration: none;
  font-size: 0.88em; border-bottom: 1px solid #eef0f2; overflow-wrap: anywhere; }
#explorer ul.items li a.current { background: #ddf4ff; font-weight: 600; }
#explorer .detail h3 { margin-top: 0; overflow-wrap: anywhere; }
#explorer .detail details { border: 1px solid #d0d7de; border-radius: 4px; margin: 0.5em 0; padding: 4px 8px; }
#explorer .detail summary { cursor: pointer; font-weight: 600; }
#explorer pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.8em; max-height: 60vh;
  overflow-y: auto; background: #f6f8fa; padding: 6px; }
#explorer .role { color: #57606a; font-weight: 600; }
#explorer mark { background: #fff1a8; }
#explorer td.kept { color: #1a7f37; font-weight: 600; }
#explorer td.lost { color: #b42318; font-weight: 600; }
@media print { #explorer { display: none; } }
`;

export const EXPLORER_SCRIPT = String.raw`
(function () {
  "use strict";
  var root = document.getElementById("explorer");
  var raw = document.getElementById("explorer-data");
  if (!root || !raw) return;
  var D = JSON.parse(raw.textContent);
  var S = D.strings;
  function s(i) { return S[i]; }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  var state = { q: "" };
  D.filters.forEach(function (f) { state[f.id] = ""; });
  root.textContent = "";
  var bar = el("div", null, "bar");
  var search = el("input");
  search.type = "search";
  search.id = "explorer-search";
  search.placeholder = "id or text";
  var sl = el("label", "Find ");
  sl.appendChild(search);
  bar.appendChild(sl);
  D.filters.forEach(function (f) {
    var lab = el("label", s(f.label) + " ");
    var sel = el("select");
    sel.id = "filter-" + f.id;
    sel.dataset.filter = f.id;
    var all = el("option", "all");
    all.value = "";
    sel.appendChild(all);
    f.options.forEach(function (o) {
      var opt = el("option", s(o[1]));
      opt.value = s(o[0]);
      sel.appendChild(opt);
    });
    sel.addEventListener("change", function () { state[f.id] = sel.value; renderList(); });
    lab.appendChild(sel);
    bar.appendChild(lab);
  });
  var count = el("span", "", "note");
  count.id = "explorer-count";
  bar.appendChild(count);
  root.appendChild(bar);
  var cols = el("div", null, "cols");
  var list = el("ul", null, "items");
  list.id = "explorer-list";
  var detail = el("section", null, "detail");
  detail.id = "explorer-detail";
  detail.appendChild(el("p", "Choose a " + s(D.item) + " on the left.", "note"));
  cols.appendChild(list);
  cols.appendChild(detail);
  root.appendChild(cols);
  search.addEventListener("input", function () { state.q = search.value.toLowerCase(); renderList(); });

  function matches(item) {
    for (var i = 0; i < D.filters.length; i++) {
      var f = D.filters[i];
      var want = state[f.id];
      if (want === "") continue;
      var tags = (item.tags[f.id] || []).map(s);
      if (tags.indexOf(want) < 0) return false;
    }
    if (state.q) {
      var hay = (s(item.id) + " " + s(item.label)).toLowerCase();
      if (hay.indexOf(state.q) < 0) return false;
    }
    return true;
  }
  var current = null;
  function renderList() {
    list.textContent = "";
    var shown = 0;
    D.items.forEach(function (item) {
      if (!matches(item)) return;
      shown++;
      var li = el("li");
      li.dataset.id = s(item.id);
      var a = el("a", s(item.id) + " · " + s(item.label));
      a.href = "#item=" + encodeURIComponent(s(item.id));
      if (current === s(item.id)) a.className = "current";
      li.appendChild(a);
      list.appendChild(li);
    });
    count.textContent = shown + " of " + D.items.length + " shown";
  }
  function table(head, rows) {
    var t = el("table");
    var tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", s(h))); });
    var thead = el("thead");
    thead.appendChild(tr);
    t.appendChild(thead);
    var tb = el("tbody");
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) {
        var text = s(c);
        var cls = text.charAt(0) === "\u2713" ? "kept" : text.charAt(0) === "\u2717" ? "lost" : null;
        row.appendChild(el("td", text, cls));
      });
      tb.appendChild(row);
    });
    t.appendChild(tb);
    var w = el("div", null, "table-wrap");
    w.appendChild(t);
    return w;
  }
  function contextPre(ctx, marks) {
    var pre = el("pre");
    var wanted = (marks || []).map(s).map(function (m) { return m.trim(); }).filter(Boolean);
    D.contexts[ctx].forEach(function (m) {
      pre.appendChild(el("span", "[" + s(m[0]) + "]\n", "role"));
      m[1].forEach(function (li) {
        var line = s(li);
        var hit = wanted.some(function (w) { return line.indexOf(w) >= 0; });
        pre.appendChild(el(hit ? "mark" : "span", line));
        pre.appendChild(document.createTextNode("\n"));
      });
    });
    return pre;
  }
  function show(id) {
    var item = null;
    for (var i = 0; i < D.items.length; i++) if (s(D.items[i].id) === id) item = D.items[i];
    if (!item) return;
    current = id;
    detail.textContent = "";
    detail.dataset.id = id;
    detail.appendChild(el("h3", s(D.item) + " " + id));
    item.sections.forEach(function (sec) {
      var box = el("details");
      if (sec.open) box.open = true;
      box.appendChild(el("summary", s(sec.h)));
      if (sec.kv) {
        var dl = el("table");
        sec.kv.forEach(function (kv) {
          var tr = el("tr");
          tr.appendChild(el("th", s(kv[0])));
          tr.appendChild(el("td", s(kv[1])));
          dl.appendChild(tr);
        });
        box.appendChild(dl);
      }
      if (sec.head) box.appendChild(table(sec.head, sec.rows));
      if (sec.ctx !== undefined) {
        var filled = false;
        var fill = function () {
          if (filled || !box.open) return;
          filled = true;
          box.appendChild(contextPre(sec.ctx, sec.marks));
        };
        box.addEventListener("toggle", fill);
        fill();
      }
      detail.appendChild(box);
    });
    renderList();
  }
  function fromHash() {
    var m = /^#item=(.*)$/.exec(location.hash);
    if (m) show(decodeURIComponent(m[1]));
  }
  window.addEventListener("hashchange", fromHash);
  renderList();
  fromHash();
})();
`;
