// jlbench dashboard: the charts, and each page's state in its URL.
// Every string from data goes into the page as text (textContent), never
// as HTML; the only HTML inserted is the server's own escaped fragments.
"use strict";

const CONFIG = JSON.parse(document.getElementById("config").textContent);

// A URL component as the server's enc() writes it.
const enc = encodeURIComponent;

// The URL of a page or data with its parameters, in the server's link
// style (web/app.py App.link).
function link(page, params) {
  const keys = Object.keys(params).filter((k) => params[k] !== "" &&
    params[k] !== undefined && params[k] !== null);
  if (CONFIG.mode === "site") {
    if (page === "graph" || page === "findings") {
      return page + ".html" + (keys.length ? "?" + keys.sort().map(
        (k) => k + "=" + enc(params[k])).join("&") : "");
    }
    const ext = page.startsWith("data/") ? ".json" : ".html";
    const name = [page.replace(/\//g, "-")].concat(keys.sort().map(
      (k) => enc(params[k]).replace(/-/g, "%2D"))).join("--") + ext;
    return enc(name);
  }
  return "/" + page + (keys.length ? "?" + keys.map(
    (k) => k + "=" + enc(params[k])).join("&") : "");
}

function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function pct(x) {
  return x === null || x === undefined ? "n/a" :
    (x >= 0 ? "+" : "") + x.toFixed(2) + "%";
}

function num(x) {
  return x === null || x === undefined ? "n/a" : Number(x).toPrecision(5);
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
  "#8c564b", "#e377c2", "#7f7f7f"];

// Chart.js plugin: each point's interval as a vertical bar, and the
// environment floor as a band around zero (or around the range's start).
const intervals = {
  id: "intervals",
  beforeDatasetsDraw(chart) {
    const {ctx, scales: {x, y}} = chart;
    ctx.save();
    ctx.fillStyle = "rgba(128, 128, 128, 0.18)";
    chart.data.datasets.forEach((ds, i) => {
      if (!chart.isDatasetVisible(i)) return;
      for (const p of ds.data) {
        if (p.band === null || p.band === undefined) continue;
        const [lo, hi] = p.band;
        const at = Math.round(p.x);
        const left = x.getPixelForValue(at - 0.4);
        const right = x.getPixelForValue(at + 0.4);
        ctx.fillRect(left, y.getPixelForValue(hi), right - left,
          y.getPixelForValue(lo) - y.getPixelForValue(hi));
      }
    });
    ctx.restore();
  },
  afterDatasetsDraw(chart) {
    const {ctx, scales: {x, y}} = chart;
    ctx.save();
    chart.data.datasets.forEach((ds, i) => {
      if (!chart.isDatasetVisible(i)) return;
      ctx.strokeStyle = ds.borderColor;
      for (const p of ds.data) {
        if (p.lo === null || p.hi === null || p.lo === undefined) continue;
        const px = x.getPixelForValue(p.x);
        ctx.beginPath();
        ctx.moveTo(px, y.getPixelForValue(p.lo));
        ctx.lineTo(px, y.getPixelForValue(p.hi));
        ctx.moveTo(px - 3, y.getPixelForValue(p.lo));
        ctx.lineTo(px + 3, y.getPixelForValue(p.lo));
        ctx.moveTo(px - 3, y.getPixelForValue(p.hi));
        ctx.lineTo(px + 3, y.getPixelForValue(p.hi));
        ctx.stroke();
      }
    });
    ctx.restore();
  },
};

// A chart of datasets [{label, points: [{x, y, lo, hi, band, run}]}] on
// categories (the x axis' names); onPoint(point) on a click.
function drawChart(canvas, categories, datasets, yTitle, onPoint) {
  const old = Chart.getChart(canvas);
  if (old) old.destroy();
  return new Chart(canvas, {
    type: "scatter",
    data: {datasets: datasets.map((d, i) => ({
      label: d.label, data: d.points,
      borderColor: COLORS[i % COLORS.length],
      backgroundColor: COLORS[i % COLORS.length],
      pointRadius: 4, pointHoverRadius: 6, showLine: d.line || false,
    }))},
    options: {
      animation: false, maintainAspectRatio: false,
      scales: {
        x: {type: "linear", min: -0.5, max: categories.length - 0.5,
          ticks: {stepSize: 1, autoSkip: true, maxRotation: 60,
            callback: (v) => Number.isInteger(v) ? categories[v] : ""},
          afterBuildTicks: (axis) => {
            axis.ticks = categories.map((_, i) => ({value: i}));
          }},
        y: {title: {display: true, text: yTitle}},
      },
      plugins: {
        tooltip: {callbacks: {label: (c) => {
          const p = c.raw;
          return c.dataset.label + ": " + num(p.y) + " [" + num(p.lo) +
            ", " + num(p.hi) + "] " + (p.run || "");
        }}},
      },
      onClick: (evt, elements, chart) => {
        if (!elements.length || !onPoint) return;
        const e = elements[0];
        onPoint(chart.data.datasets[e.datasetIndex].data[e.index]);
      },
    },
    plugins: [intervals],
  });
}

// ---- the overview ------------------------------------------------------

function overview() {
  const node = document.getElementById("across-data");
  if (!node) return;
  const rows = JSON.parse(node.textContent);
  const workloads = [...new Set(rows.map((r) => r.workload))];
  const labels = [...new Set(rows.map((r) => r.label))];
  const datasets = labels.map((label, i) => ({
    label: label,
    points: rows.filter((r) => r.label === label).map((r) => ({
      // the labels of one workload side by side
      x: workloads.indexOf(r.workload) + 0.2 * (i - (labels.length - 1) / 2),
      y: r.pct_change,
      lo: r.pct_ci_lo, hi: r.pct_ci_hi, run: r.path,
      band: r.floor_pts ? [-r.floor_pts, r.floor_pts] : null,
    })),
  }));
  drawChart(document.getElementById("across-chart"), workloads, datasets,
    "% change against the baseline",
    (p) => { window.location.href = link("run", {run: p.run}); });
}

// ---- the graph ---------------------------------------------------------

function graphState() {
  const q = new URLSearchParams(window.location.search);
  return {
    series: q.getAll("s"), hide: q.getAll("hide"),
    x: q.get("x") || "commit", y: q.get("y") || "change",
    search: q.get("search") || "",
  };
}

function setGraphState(state) {
  const q = new URLSearchParams();
  state.series.forEach((s) => q.append("s", s));
  state.hide.forEach((s) => q.append("hide", s));
  if (state.x !== "commit") q.set("x", state.x);
  if (state.y !== "change") q.set("y", state.y);
  if (state.x === "range" && state.search) q.set("search", state.search);
  const text = q.toString();
  window.history.replaceState(null, "", window.location.pathname +
    (text ? "?" + text : ""));
}

const seriesCache = {};

function fetchJSON(url) {
  if (!seriesCache[url]) {
    seriesCache[url] = fetch(url).then((r) => {
      if (!r.ok) throw new Error(url + ": HTTP " + r.status);
      return r.json();
    });
  }
  return seriesCache[url];
}

function splitSeries(s) {
  const [workload, metric, ...rest] = s.split(":");
  return {workload, metric, label: rest.join(":")};
}

function xKey(row, axis) {
  if (axis === "kernel") {
    return (row.kernel_version || "?") + (row.tree ? " " +
      row.tree.slice(0, 7) : "");
  }
  return (row.git_commit || "?").slice(0, 7) + " " +
    (row.created_utc || "").slice(0, 16);
}

async function graph() {
  const state = graphState();
  const form = document.getElementById("add-series");
  const status = document.getElementById("graph-status");
  const canvas = document.getElementById("graph-chart");
  const selection = document.getElementById("selection");
  form.elements.x.value = state.x;
  form.elements.y.value = state.y;
  if (state.search) form.elements.search.value = state.search;
  document.getElementById("range-pick").hidden = state.x !== "range";
  let picked = null;

  function onPoint(p) {
    if (!picked || picked.run === p.run) {
      picked = p;
      selection.textContent = "";
      selection.append("Selected ", el("a", p.run,
        {href: link("run", {run: p.run})}),
      ": click another point to compare the two runs.");
      return;
    }
    const href = link("compare", {a: picked.run, b: p.run});
    if (CONFIG.mode !== "site") {
      window.location.href = href;
      return;
    }
    // a static site has the pages of the pairs it links only
    fetch(href, {method: "HEAD"}).then((r) => {
      if (r.ok) {
        window.location.href = href;
        return;
      }
      selection.textContent = "This static site has no page comparing " +
        picked.run + " and " + p.run + ": `jlbench serve` compares any " +
        "two runs, as does `jlbench compare results/" + picked.run +
        " results/" + p.run + "`.";
      picked = null;
    });
  }

  function redraw() {
    setGraphState(state);
    drawList();
    draw().catch((e) => { status.textContent = String(e); });
  }

  function drawList() {
    const list = document.getElementById("series-list");
    list.textContent = "";
    if (state.x === "range") return;
    state.series.forEach((s) => {
      const li = el("li", null, {"data-series": s});
      const box = el("input", null, {type: "checkbox"});
      box.checked = !state.hide.includes(s);
      box.addEventListener("change", () => {
        state.hide = box.checked ? state.hide.filter((h) => h !== s) :
          state.hide.concat([s]);
        redraw();
      });
      const remove = el("button", "remove", {type: "button"});
      remove.addEventListener("click", () => {
        state.series = state.series.filter((h) => h !== s);
        state.hide = state.hide.filter((h) => h !== s);
        redraw();
      });
      li.append(box, " ", el("span", s), " ", remove);
      list.append(li);
    });
  }

  async function draw() {
    const table = document.querySelector("#points tbody");
    table.textContent = "";
    if (state.x === "range") return drawRange(table);
    const shown = state.series.filter((s) => !state.hide.includes(s));
    status.textContent = shown.length ? "" :
      "No series shown: add one above, or tick a hidden one.";
    const loaded = await Promise.all(shown.map((s) => {
      const p = splitSeries(s);
      return fetchJSON(link("data/series", p)).then((rows) => [s, rows]);
    }));
    const keys = [];
    const seen = new Set();
    const rowsOf = loaded.map(([, rows]) => rows).flat();
    rowsOf.slice().sort((a, b) => state.x === "kernel" ?
      xKey(a, "kernel").localeCompare(xKey(b, "kernel"),
        undefined, {numeric: true}) :
      (a.created_utc || "").localeCompare(b.created_utc || ""))
      .forEach((r) => {
        const k = xKey(r, state.x);
        if (!seen.has(k)) { seen.add(k); keys.push(k); }
      });
    const change = state.y === "change";
    const datasets = loaded.map(([s, rows]) => ({
      label: s,
      points: rows.filter((r) => change ? r.pct_change !== null :
        r.mean !== null).map((r) => ({
        x: keys.indexOf(xKey(r, state.x)),
        y: change ? r.pct_change : r.mean,
        lo: change ? r.pct_ci_lo : r.ci_lo,
        hi: change ? r.pct_ci_hi : r.ci_hi,
        band: change && r.floor_pts ? [-r.floor_pts, r.floor_pts] : null,
        run: r.run,
      })),
    }));
    datasets.forEach((d) => d.points.forEach((p) => {
      const tr = el("tr");
      const a = el("a", p.run, {href: link("run", {run: p.run})});
      const td = el("td");
      td.append(a);
      tr.append(el("td", d.label), el("td", keys[p.x]), td,
        el("td", (change ? pct(p.y) : num(p.y)) + " [" +
          (change ? pct(p.lo) : num(p.lo)) + ", " +
          (change ? pct(p.hi) : num(p.hi)) + "]"));
      table.append(tr);
    }));
    if (shown.length && !datasets.some((d) => d.points.length)) {
      status.textContent = "The series shown have no " + (change ?
        "change against a baseline" : "figure") + " in the store.";
    }
    drawChart(canvas, keys, datasets, change ?
      "% change against the baseline" : "figure", onPoint);
  }

  async function drawRange(table) {
    if (!state.search) {
      status.textContent = "The store has no scanned range.";
      return;
    }
    const d = await fetchJSON(link("data/search", {path: state.search}));
    const steps = d.steps;
    const start = steps.length ? steps[0].mean : null;
    const floor = d.search.floor_pct;
    const points = steps.map((s, i) => ({
      x: i, y: s.mean, lo: s.lo, hi: s.hi, run: s.results,
      band: start !== null && floor ? [start * (1 - floor / 100),
        start * (1 + floor / 100)] : null,
    }));
    status.textContent = d.search.kind + " of " + d.search.workload + ", " +
      d.search.metric + ": each point the mean of its seeds, the bar " +
      "their range, the band the floor around the range's start.";
    steps.forEach((s) => {
      const tr = el("tr");
      const td = el("td");
      if (s.results) {
        td.append(el("a", s.results, {href: link("run", {run: s.results})}));
      }
      tr.append(el("td", s.decision || ""), el("td", s.revision), td,
        el("td", num(s.mean) + " [" + num(s.lo) + ", " + num(s.hi) + "]"));
      table.append(tr);
    });
    drawChart(canvas, steps.map((s) => (s.revision || "").slice(0, 24)),
      [{label: d.search.path, points: points, line: true}],
      d.search.metric, (p) => p.run && onPoint(p));
  }

  form.addEventListener("submit", (evt) => {
    evt.preventDefault();
    const s = [form.elements.workload.value, form.elements.metric.value,
      form.elements.label.value].join(":");
    if (!state.series.includes(s)) state.series.push(s);
    state.x = state.x === "range" ? "commit" : state.x;
    form.elements.x.value = state.x;
    document.getElementById("range-pick").hidden = true;
    redraw();
  });
  for (const name of ["x", "y", "search"]) {
    form.elements[name].addEventListener("change", () => {
      state[name] = form.elements[name].value;
      document.getElementById("range-pick").hidden = state.x !== "range";
      if (state.x === "range" && !state.search) {
        state.search = form.elements.search.value;
      }
      redraw();
    });
  }
  if (!state.series.length && state.x !== "range") {
    state.series.push(form.dataset.default);
  }
  setGraphState(state);
  drawList();
  return draw().catch((e) => { status.textContent = String(e); });
}

// ---- compare: the ~ rows, and each workload's functions ---------------

function compare() {
  const box = document.getElementById("show-all");
  const q = new URLSearchParams(window.location.search);
  box.checked = q.get("all") === "1";
  function apply() {
    document.querySelectorAll("tr.irrelevant").forEach((tr) => {
      tr.hidden = !box.checked;
    });
  }
  // each workload's table, two requests at a time
  const tables = [...document.querySelectorAll(".fragment.table")];
  async function worker() {
    for (let t = tables.shift(); t; t = tables.shift()) {
      await loadFragment(t, t.dataset.href);
      apply();
    }
  }
  const done = Promise.all([worker(), worker()]);
  box.addEventListener("change", () => {
    const p = new URLSearchParams(window.location.search);
    if (box.checked) p.set("all", "1"); else p.delete("all");
    const text = p.toString();
    window.history.replaceState(null, "", window.location.pathname +
      (text ? "?" + text : ""));
    apply();
  });
  apply();
  document.querySelectorAll("details.profile, details.counters").forEach(
    (d) => {
      d.addEventListener("toggle", () => {
        const target = d.querySelector(".fragment");
        if (!d.open || target.dataset.loaded) return;
        target.dataset.loaded = "1";
        loadFragment(target, d.dataset.href).then(apply);
      });
    });
  return done;
}

// A server-rendered fragment (already escaped) into target.
function loadFragment(target, href) {
  target.textContent = "Loading…";
  return fetch(href).then((r) => r.text().then((text) => {
    if (!r.ok) {
      const doc = new DOMParser().parseFromString(text, "text/html");
      const msg = doc.getElementById("error");
      target.textContent = "Not available: " + (msg ? msg.textContent :
        "HTTP " + r.status);
      target.classList.add("error");
      return;
    }
    target.innerHTML = text;
  })).catch((e) => { target.textContent = String(e); });
}

// ---- findings: filters in the URL ------------------------------------

function findings() {
  const form = document.getElementById("filters");
  const q = new URLSearchParams(window.location.search);
  for (const name of ["state", "workload", "range"]) {
    form.elements[name].value = q.get(name) || "";
  }
  function apply() {
    const p = new URLSearchParams();
    const want = {};
    for (const name of ["state", "workload", "range"]) {
      want[name] = form.elements[name].value;
      if (want[name]) p.set(name, want[name]);
    }
    const text = p.toString();
    window.history.replaceState(null, "", window.location.pathname +
      (text ? "?" + text : ""));
    document.querySelectorAll("#findings tbody tr[data-state]").forEach(
      (tr) => {
        tr.hidden = (want.state && tr.dataset.state !== want.state) ||
          (want.workload && tr.dataset.workload !== want.workload) ||
          (want.range && !tr.dataset.search.includes(want.range));
      });
  }
  form.addEventListener("change", apply);
  form.addEventListener("input", apply);
  form.addEventListener("submit", (evt) => evt.preventDefault());
  apply();
}

// ---- run: its REPORT.md -------------------------------------------------

function run() {
  const target = document.getElementById("report");
  return loadFragment(target, target.dataset.href);
}

const PAGES = {overview, graph, compare, findings, run};
document.addEventListener("DOMContentLoaded", () => {
  const fn = PAGES[CONFIG.page];
  if (fn) {
    // body[data-loaded]: the page has its data (the browser tests wait
    // for it)
    Promise.resolve(fn()).then(() => {
      document.body.dataset.loaded = "1";
    }, (e) => {
      const p = el("p", "The page's script failed: " + e, {class: "error"});
      document.querySelector("main").prepend(p);
      throw e;
    });
  }
});
