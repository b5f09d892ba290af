// The catalog's filters (industry, country, compared with a previous run) and search box (/buscar). Plain DOM, no
// framework; results are built with textContent, never innerHTML. Without JavaScript the
// page still lists every study and the form sends the search to /buscar (JSON).
(function () {
  "use strict";

  var form = document.getElementById("busqueda");
  var input = document.getElementById("q");
  var results = document.getElementById("resultados");
  var filters = document.getElementById("filtros");
  var industry = document.getElementById("filtro-industria");
  var country = document.getElementById("filtro-pais");
  var previous = document.getElementById("filtro-anterior");
  var status = document.getElementById("filtro-estado");
  var cards = Array.prototype.slice.call(document.querySelectorAll(".tarjeta"));
  if (!form || !input || !results || !filters) return;

  function applyFilters() {
    var shown = 0;
    cards.forEach(function (card) {
      var okIndustry = !industry.value || card.dataset.industria === industry.value;
      var okCountry = !country.value || card.dataset.paises.split("|").indexOf(country.value) >= 0;
      var okPrevious = !previous || !previous.checked || card.dataset.anterior === "1";
      card.hidden = !(okIndustry && okCountry && okPrevious);
      if (!card.hidden) shown += 1;
    });
    status.textContent = shown + " de " + cards.length + " estudios";
  }

  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function showMessage(text, isError) {
    var box = element("div", "", "resultados");
    box.appendChild(element("p", text, isError ? "error" : ""));
    results.replaceChildren(box);
  }

  function reasons(hit) {
    if (hit.marcas_coincidentes && hit.marcas_coincidentes.length) {
      return "Marcas: " + hit.marcas_coincidentes.join(", ");
    }
    var seen = [];
    (hit.por_que || []).forEach(function (why) {
      var text = why.coincide_con + " (" + why.campo + ")";
      if (seen.indexOf(text) < 0) seen.push(text);
    });
    return seen.length ? "Coincide con: " + seen.join(", ") : "";
  }

  function showResults(query, answer) {
    var box = element("div", "", "resultados");
    var total = answer.total;
    box.appendChild(element("h3", total === 0
      ? "Sin resultados para «" + query + "»"
      : total + (total === 1 ? " estudio" : " estudios") + " para «" + query + "»"));
    if (total > 0) {
      var list = element("ol");
      answer.resultados.forEach(function (hit) {
        var item = element("li");
        var link = element("a", hit.nombre);
        link.href = "/estudios/" + encodeURIComponent(hit.slug);
        item.appendChild(link);
        item.appendChild(element("span", hit.industria + " · " + hit.pais.join(", "), "porque"));
        var why = reasons(hit);
        if (why) item.appendChild(element("span", why, "porque"));
        list.appendChild(item);
      });
      box.appendChild(list);
    } else {
      box.appendChild(element("p", "Pruebe con el nombre de una marca, una industria o un país."));
    }
    results.replaceChildren(box);
  }

  function search(query) {
    results.setAttribute("aria-busy", "true");
    return fetch("/buscar?q=" + encodeURIComponent(query), { headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) throw new Error(body.mensaje || "La búsqueda falló.");
          showResults(query, body);
        });
      })
      .catch(function (error) {
        showMessage(error instanceof SyntaxError || error instanceof TypeError
          ? "La búsqueda necesita el servidor del servicio; desde aquí solo está el catálogo."
          : error.message, true);
      })
      .then(function () {
        results.removeAttribute("aria-busy");
      });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var query = input.value.trim();
    var url = new URL(window.location.href);
    if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
    window.history.replaceState(null, "", url);
    if (!query) {
      results.replaceChildren();
      return;
    }
    search(query);
  });

  filters.hidden = false;
  industry.addEventListener("change", applyFilters);
  country.addEventListener("change", applyFilters);
  if (previous) previous.addEventListener("change", applyFilters);
  applyFilters();

  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) {
    input.value = initial;
    search(initial.trim());
  }
})();
