// The front page's offers table: filters and the unit live in the address's hash (#kind=all&accelerator=Trainium2),
// so a shared link opens on the same rows. Figures are compared as decimal text, never converted to floats.
(function () {
  var table = document.getElementById("offers");
  var form = document.getElementById("offer-filters");
  if (!table || !form) return;
  var selects = Array.from(form.querySelectorAll("select"));
  var body = table.tBodies[0];
  var rows = Array.from(body.rows);
  rows.forEach(function (row, index) { row.dataset.order = index; });

  function restore() {
    var params = new URLSearchParams(location.hash.slice(1));
    selects.forEach(function (select) {
      var wanted = params.get(select.name);
      var known = Array.from(select.options).some(function (o) { return o.value === wanted; });
      select.value = known ? wanted : select.dataset.default;
    });
  }

  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var keep = selects.every(function (s) {
        return s.name === "unit" || s.value === "all" || row.dataset[s.name] === s.value;
      });
      row.hidden = !keep;
      if (keep) shown += 1;
    });
    table.dataset.unit = form.elements.unit.value;
    document.getElementById("offers-count").textContent = shown + " of " + rows.length + " offers";
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

  // Ties keep the query's order (price, then provider, offering, region), whichever way the column sorts.
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
    rows.forEach(function (row) { body.appendChild(row); });
  }

  table.querySelectorAll("thead th").forEach(function (th, column) {
    th.addEventListener("click", function () { sortBy(th, column); });
  });
  form.addEventListener("change", function () { apply(); remember(); });
  window.addEventListener("hashchange", function () { restore(); apply(); });
  restore();
  apply();
})();
