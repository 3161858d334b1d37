// A page's filters (form.filters): the price kind, region, accelerator and provider it shows, and on the front
// page the unit. Their state lives in the address's hash (#kind=all&accelerator=Trainium2), so a shared link opens
// on the same rows and lines. A filtered table hides the rows whose data-* values differ; a filtered chart redraws
// with only the points that match (its Vega params), and hides when none does. Figures are compared as decimal
// text, never converted to floats.
(function () {
  var form = document.querySelector("form.filters");
  if (!form) return;
  var selects = Array.from(form.querySelectorAll("select"));
  var table = form.dataset.table ? document.getElementById(form.dataset.table) : null;
  var rows = table ? Array.from(table.tBodies[0].rows) : [];
  rows.forEach(function (row, index) { row.dataset.order = index; });
  var figures = Array.from(document.querySelectorAll("figure.chart"));
  var filtered = figures.filter(function (f) { return f.dataset.filtered === "yes"; });
  var count = form.querySelector("output");

  function restore() {
    var params = new URLSearchParams(location.hash.slice(1));
    selects.forEach(function (select) {
      var wanted = params.get(select.name);
      var known = Array.from(select.options).some(function (o) { return o.value === wanted; });
      select.value = known ? wanted : select.dataset.default;
    });
  }

  // The filters a row or point must pass: field name -> wanted value ("all" passes everything).
  function wanted() {
    return selects.filter(function (s) { return s.name !== "unit" && s.value !== "all"; })
      .map(function (s) { return [s.dataset.field, s.name, s.value]; });
  }

  function applyToTable(conditions) {
    var shown = 0;
    rows.forEach(function (row) {
      var keep = conditions.every(function (c) { return row.dataset[c[1]] === c[2]; });
      row.hidden = !keep;
      if (keep) shown += 1;
    });
    if (form.elements.unit) table.dataset.unit = form.elements.unit.value;
    return shown + " of " + rows.length + " rows";
  }

  function applyToCharts(conditions) {
    var shown = 0;
    filtered.forEach(function (figure) {
      var points = JSON.parse(figure.querySelector("script[type='application/json']").textContent).data.values;
      var keep = points.some(function (p) { return conditions.every(function (c) { return p[c[0]] === c[2]; }); });
      figure.hidden = !keep;
      if (keep) shown += 1;
    });
    return shown + " of " + filtered.length + " charts";
  }

  // Each chart's view takes the filters as signals (param f_<name>); dashboard.js embeds them in document order.
  function redraw() {
    if (!filtered.length || !window.ratecardCharts) return Promise.resolve();
    return window.ratecardCharts.then(function (results) {
      return Promise.all(results.map(function (result, index) {
        if (figures[index].dataset.filtered !== "yes") return null;
        selects.forEach(function (s) { if (s.name !== "unit") result.view.signal("f_" + s.name, s.value); });
        return result.view.runAsync();
      }));
    });
  }

  function apply() {
    var conditions = wanted();
    var said = [];
    if (table) said.push(applyToTable(conditions));
    if (filtered.length) said.push(applyToCharts(conditions));
    if (count) count.textContent = said.join(", ");
    form.dataset.applied = "no";
    window.ratecardFiltered = redraw().then(function () { form.dataset.applied = "yes"; });
  }

  function remember() {
    var params = new URLSearchParams();
    selects.forEach(function (s) { params.set(s.name, s.value); });
    history.replaceState(null, "", "#" + params.toString());
  }

  // Non-negative fixed-point text ("12.5", "0.0001"); an empty cell sorts last.
  function compareDecimals(a, b) {
    if (a === "" || b === "") return (a === "") - (b === "");
    var x = a.split("."), y = b.split(".");
    if (x[0].length !== y[0].length) return x[0].length - y[0].length;
    if (x[0] !== y[0]) return x[0] < y[0] ? -1 : 1;
    var places = Math.max((x[1] || "").length, (y[1] || "").length);
    var fx = (x[1] || "").padEnd(places, "0"), fy = (y[1] || "").padEnd(places, "0");
    return fx < fy ? -1 : fx > fy ? 1 : 0;
  }

  // Ties keep the query's order, whichever way the column sorts.
  function sortBy(th, column) {
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var numeric = th.dataset.type === "number";
    rows.sort(function (r, s) {
      var a = r.cells[column].textContent, b = s.cells[column].textContent;
      var order = numeric ? compareDecimals(a, b) : a.localeCompare(b);
      return (ascending ? order : -order) || r.dataset.order - s.dataset.order;
    });
    rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
  }

  if (table) {
    table.querySelectorAll("thead th").forEach(function (th, column) {
      th.addEventListener("click", function () { sortBy(th, column); });
    });
  }
  form.addEventListener("change", function () { apply(); remember(); });
  window.addEventListener("hashchange", function () { restore(); apply(); });
  restore();
  apply();
})();
