/* factdiff's small SVG charts: no dependencies, no network, text set as text only.
 *
 * Every <div class="chart" data-kind="..." data-source="ID"> is drawn from the JSON in
 * <script type="application/json" id="ID">:
 *   kind "rate" | "count" | "usd": {"labels": [...], "values": [...], "display": [...]} ->
 *     one horizontal <rect class="bar"> per label, its value written as "display" gives it
 *     (the page's own formatting: percentages, dollars), else as the number;
 *   kind "stacked": {"labels": [days], "series": [{"name", "values"}]} -> one column per
 *     label (<g class="column">), one <rect class="bar"> per non-zero value.
 * Charts are redrawn at the container's width when the window is resized.
 */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var SERIES = { clean: "#2e7d32", acceptable_with_notes: "#9e7c00", failed: "#c62828", error: "#6a1b9a" };

  function el(name, attrs, text) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) { node.textContent = String(text); }
    return node;
  }

  function format(kind, value) {
    if (kind === "rate") { return (value * 100).toFixed(1) + "%"; }
    if (kind === "usd") { return "$" + value.toFixed(4); }
    return String(value);
  }

  function bars(box, kind, data, width) {
    var row = 26, labelW = Math.min(220, Math.round(width * 0.4)), valueW = 64;
    var barW = Math.max(20, width - labelW - valueW - 8);
    var max = kind === "rate" ? 1 : Math.max.apply(null, data.values.concat([0])) || 1;
    var svg = el("svg", { width: width, height: data.labels.length * row + 4, class: "bars" });
    data.labels.forEach(function (label, i) {
      var v = Number(data.values[i]) || 0, y = i * row + 2;
      var shownValue = data.display ? String(data.display[i]) : format(kind, v);
      var g = el("g", { class: "row" });
      var fits = Math.max(4, Math.floor((labelW - 8) / 7));
      var shown = label.length > fits ? label.slice(0, fits - 1) + "\u2026" : label;
      var name = el("text", { x: labelW - 6, y: y + 17, "text-anchor": "end", class: "label" }, shown);
      name.appendChild(el("title", {}, label));
      g.appendChild(name);
      var rect = el("rect", { x: labelW, y: y + 4, height: row - 8, width: Math.max(1, barW * v / max), class: "bar bar-" + kind });
      rect.appendChild(el("title", {}, label + ": " + shownValue));
      g.appendChild(rect);
      g.appendChild(el("text", { x: labelW + barW + 6, y: y + 17, class: "value" }, shownValue));
      svg.appendChild(g);
    });
    box.appendChild(svg);
  }

  function stacked(box, data, width) {
    var height = 200, bottom = 36, left = 32;
    var totals = data.labels.map(function (_, i) {
      return data.series.reduce(function (sum, s) { return sum + (Number(s.values[i]) || 0); }, 0);
    });
    var max = Math.max.apply(null, totals.concat([1]));
    var step = (width - left) / Math.max(1, data.labels.length);
    var colW = Math.max(4, Math.min(48, step * 0.7));
    var svg = el("svg", { width: width, height: height + bottom, class: "stacked" });
    svg.appendChild(el("text", { x: 2, y: 12, class: "value" }, String(max)));
    svg.appendChild(el("line", { x1: left, y1: height, x2: width, y2: height, class: "axis" }));
    data.labels.forEach(function (label, i) {
      var g = el("g", { class: "column" });
      var x = left + i * step + (step - colW) / 2, y = height;
      data.series.forEach(function (s) {
        var v = Number(s.values[i]) || 0;
        if (v <= 0) { return; }
        var h = (height - 16) * v / max;
        y -= h;
        var rect = el("rect", { x: x, y: y, width: colW, height: h, class: "bar", fill: SERIES[s.name] || "#555" });
        rect.appendChild(el("title", {}, label + " " + s.name + ": " + v));
        g.appendChild(rect);
      });
      if (data.labels.length <= 12 || i % Math.ceil(data.labels.length / 12) === 0) {
        g.appendChild(el("text", { x: x + colW / 2, y: height + 14, "text-anchor": "middle", class: "label" }, label.slice(5)));
      }
      svg.appendChild(g);
    });
    var legend = el("g", { class: "legend" }), lx = left, ly = height + 22;
    data.series.forEach(function (s) {
      var w = 14 + s.name.length * 7 + 12;
      if (lx + w > width && lx > left) { lx = left; ly += 16; }
      legend.appendChild(el("rect", { x: lx, y: ly, width: 10, height: 10, fill: SERIES[s.name] || "#555" }));
      legend.appendChild(el("text", { x: lx + 14, y: ly + 9, class: "label" }, s.name.replace(/_/g, " ")));
      lx += w;
    });
    svg.setAttribute("height", String(ly + 16));
    svg.appendChild(legend);
    box.appendChild(svg);
  }

  function draw() {
    Array.prototype.forEach.call(document.querySelectorAll(".chart[data-source]"), function (box) {
      var source = document.getElementById(box.getAttribute("data-source"));
      if (!source) { return; }
      var data = JSON.parse(source.textContent);
      while (box.firstChild) { box.removeChild(box.firstChild); }
      var width = Math.max(240, box.clientWidth);
      var kind = box.getAttribute("data-kind");
      if (kind === "stacked") { stacked(box, data, width); } else { bars(box, kind, data, width); }
    });
  }

  var pending = null;
  window.addEventListener("resize", function () {
    if (pending) { window.clearTimeout(pending); }
    pending = window.setTimeout(draw, 100);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
}());
