// Glue only: every table.sortable becomes a simple-datatables table (sort, filter), every figure.chart a
// Vega-Lite chart drawn as SVG from the spec embedded beside it.
document.querySelectorAll("table.sortable").forEach(function (table) {
  var numbers = [];
  table.querySelectorAll("thead th").forEach(function (th, index) {
    if (th.dataset.type === "number") numbers.push(index);
  });
  var columns = numbers.length ? [{ select: numbers, type: "number" }] : [];
  new simpleDatatables.DataTable(table, { paging: false, searchable: true, fixedHeight: false, columns: columns });
});
window.ratecardCharts = Promise.all(
  Array.from(document.querySelectorAll("figure.chart")).map(function (figure) {
    var spec = JSON.parse(figure.querySelector("script[type='application/json']").textContent);
    return vegaEmbed(figure.querySelector(".vega"), spec, { renderer: "svg", actions: false, mode: "vega-lite" });
  })
);
