//! The sources an answer cites: media and review sites of the region, pages on the sites of
//! the brands it names, and now and then a brand page for a brand it does not name.
//!
//! Citations feed the citation and ghost-citation metrics and the source-domain tables, so
//! their URLs must look like the real sites' (dated paths, Reddit ids, La Nación's `nid`),
//! and a brand page must be on one of the brand's declared domains.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand_chacha::ChaCha8Rng;

use generator::model::Source;

use super::Elegida;
use super::texto::{es, relevantes, slug, una_de};
use crate::industria::PreguntaBase;
use crate::industria::{Industria, Marca, Medio};
use crate::modelos::Modelo;

/// Sources: media and review sites of the region, brand pages for some named brands, and
/// now and then a brand page for a brand the text does not name (a ghost citation).
pub(crate) fn citar(
    ind: &Industria,
    pregunta: &PreguntaBase,
    modelo: &Modelo,
    elegidas: &[Elegida<'_>],
    rng: &mut ChaCha8Rng,
) -> Vec<Source> {
    let idioma = pregunta.idioma.as_str();
    let (fmin, fmax) = modelo.estilo.fuentes;
    let mut n_medios = rng.random_range(fmin..=fmax);
    let mut fuentes: Vec<Source> = Vec::new();
    for e in elegidas {
        if fuentes.len() < 3 && rng.random_bool(modelo.estilo.cita_marca) {
            fuentes.push(pagina_de_marca(ind, &ind.marcas[e.idx], idioma, rng));
            n_medios = n_medios.saturating_sub(1);
        }
    }
    if rng.random_bool(modelo.estilo.fantasma) {
        let nombradas: Vec<usize> = elegidas.iter().map(|e| e.idx).collect();
        let otras: Vec<usize> = (0..ind.marcas.len()).filter(|i| !nombradas.contains(i)).collect();
        if let Some(&i) = otras.choose(rng) {
            fuentes.push(pagina_de_marca(ind, &ind.marcas[i], idioma, rng));
        }
    }
    let medios: Vec<&Medio> =
        ind.fuentes.medios.iter().filter(|m| m.idioma == idioma || m.idioma == "*" || rng.random_bool(0.15)).collect();
    for _ in 0..n_medios {
        if fuentes.len() >= 6 {
            break;
        }
        let Some(medio) = medios.choose(rng) else {
            break;
        };
        let banco = ind.titulos.de(if medio.idioma == "en" { "en" } else { idioma });
        let valores = pregunta.valores();
        let titulo = relevantes(rng, banco, &valores, 2).into_iter().next().unwrap_or("");
        let url = url_de_medio(medio, titulo, rng);
        if fuentes.iter().any(|f| f.url == url) {
            continue;
        }
        fuentes.push(Source { url, titulo: format!("{titulo} - {}", medio.nombre) });
    }
    fuentes.shuffle(rng);
    fuentes
}

/// An article URL on a media site, shaped like that site's URLs.
pub(crate) fn url_de_medio(medio: &Medio, titulo: &str, rng: &mut ChaCha8Rng) -> String {
    let mes = rng.random_range(1..=12u32);
    let dia = rng.random_range(1..=28u32);
    let anio = if mes >= 6 { 2025 } else { 2026 };
    let (anio, mes) = if anio == 2026 && mes > 2 { (2025, mes) } else { (anio, mes) };
    let ruta = medio.ruta.replace("{fecha}", &format!("{anio}/{mes:02}/{dia:02}"));
    let s = slug(titulo);
    let host = &medio.host;
    if host.contains("reddit.com") {
        let id: String =
            (0..6).map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)])).collect();
        format!("https://{host}{ruta}{id}/{}/", s.replace('-', "_"))
    } else if host.contains("lanacion.com.ar") {
        format!("https://{host}{ruta}{s}-nid{dia:02}{mes:02}{anio}/")
    } else if host.contains("clarin.com") {
        let id: String = (0..9)
            .map(|_| char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"[rng.random_range(0..49)]))
            .collect();
        format!("https://{host}{ruta}{s}_0_{id}.html")
    } else if host.contains("tripadvisor") {
        let g: u32 = rng.random_range(300_000..330_000);
        format!("https://{host}/Hotels-g{g}-{}.html", s.replace('-', "_"))
    } else {
        format!("https://{host}{ruta}{s}/")
    }
}

/// A page on one of the brand's domains (www, bare, `ayuda.` or `blog.`).
pub(crate) fn pagina_de_marca(ind: &Industria, m: &Marca, idioma: &str, rng: &mut ChaCha8Rng) -> Source {
    let dominio = una_de(rng, &m.dominios);
    let u: f64 = rng.random();
    let host = if u < 0.6 {
        format!("www.{dominio}")
    } else if u < 0.8 {
        dominio.to_owned()
    } else if u < 0.9 {
        format!("ayuda.{dominio}")
    } else {
        format!("blog.{dominio}")
    };
    let (ruta, t_es, t_en) = ind
        .fuentes
        .paginas
        .choose(rng)
        .map_or(("/", "{marca}", "{marca}"), |p| (p.ruta.as_str(), p.titulo.as_str(), p.titulo_en.as_str()));
    let titulo = if es(idioma) { t_es } else { t_en }.replace("{marca}", &m.nombre);
    Source { url: format!("https://{host}{ruta}"), titulo }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::engine::prueba::{industria, modelo, rng};

    #[test]
    fn a_brand_page_is_on_one_of_its_domains() {
        let ind = industria();
        let beta = &ind.marcas[ind.marca("beta")];
        let mut hosts = BTreeSet::new();
        for seed in 0..200 {
            let s = pagina_de_marca(&ind, beta, "es", &mut rng(seed));
            let host = s.url.trim_start_matches("https://").trim_end_matches("/personas").to_owned();
            assert!(s.url.ends_with("/personas"), "{}", s.url);
            assert!(host.ends_with("beta.com") || host.ends_with("betabank.com"), "{host}");
            assert_eq!(s.titulo, "Personas | Beta");
            hosts.insert(host);
        }
        for h in ["www.beta.com", "beta.com", "ayuda.beta.com", "blog.betabank.com"] {
            assert!(hosts.contains(h), "{h} in {hosts:?}");
        }
        assert_eq!(pagina_de_marca(&ind, beta, "en", &mut rng(1)).titulo, "Personal | Beta");
    }

    #[test]
    fn media_urls_look_like_the_sites_own() {
        let ind = industria();
        let medio = |host: &str| ind.fuentes.medios.iter().find(|m| m.host == host).expect("medio");
        let titulo = "Qué banco conviene en 2026";
        for seed in 0..200 {
            let u = url_de_medio(medio("www.infobae.com"), titulo, &mut rng(seed));
            let fecha = u
                .strip_prefix("https://www.infobae.com/economia/")
                .and_then(|r| r.strip_suffix("/que-banco-conviene-en-2026/"))
                .unwrap_or_else(|| panic!("{u}"));
            // A date between March 2025 and February 2026, before the runs.
            let (anio, resto) = fecha.split_once('/').expect("year");
            let mes: u32 = resto[..2].parse().expect("month");
            assert!(matches!((anio, mes), ("2025", 3..=12) | ("2026", 1..=2)), "{fecha}");
            let u = url_de_medio(medio("www.reddit.com"), titulo, &mut rng(seed));
            let id = u.strip_prefix("https://www.reddit.com/r/merval/comments/").expect("reddit path");
            assert!(id.ends_with("/que_banco_conviene_en_2026/") && id.find('/') == Some(6), "{u}");
            let u = url_de_medio(medio("www.lanacion.com.ar"), titulo, &mut rng(seed));
            assert!(u.starts_with("https://www.lanacion.com.ar/economia/que-banco-conviene-en-2026-nid"), "{u}");
        }
        let u = url_de_medio(medio("www.reuters.com"), "Best banks in Argentina", &mut rng(1));
        assert_eq!(u, "https://www.reuters.com/world/best-banks-in-argentina/");
    }

    #[test]
    fn named_brands_are_cited_on_their_own_sites_ghosts_on_others() {
        let ind = industria();
        let q = &ind.preguntas[0];
        let el = vec![
            Elegida { idx: 0, nombre: "Banco Alfa".into(), pro: vec![], contra: None },
            Elegida { idx: 1, nombre: "Beta".into(), pro: vec![], contra: None },
        ];
        let de = |url: &str| ind.marcas.iter().position(|m| m.dominios.iter().any(|d| url.contains(d.as_str())));
        let mut siempre = modelo("gpt-5");
        (siempre.estilo.cita_marca, siempre.estilo.fantasma) = (1.0, 0.0);
        let mut fantasma = modelo("gpt-5");
        (fantasma.estilo.cita_marca, fantasma.estilo.fantasma) = (0.0, 1.0);
        for seed in 0..100 {
            let fuentes = citar(&ind, q, &siempre, &el, &mut rng(seed));
            let marcas: BTreeSet<usize> = fuentes.iter().filter_map(|s| de(&s.url)).collect();
            assert_eq!(marcas, BTreeSet::from([0, 1]));
            assert!(fuentes.len() <= 6);
            let urls: BTreeSet<&str> = fuentes.iter().map(|s| s.url.as_str()).collect();
            assert_eq!(urls.len(), fuentes.len(), "no URL twice");
            let fuentes = citar(&ind, q, &fantasma, &el, &mut rng(seed));
            let marcas: Vec<usize> = fuentes.iter().filter_map(|s| de(&s.url)).collect();
            assert_eq!(marcas, [2], "the one brand the answer does not name");
        }
    }
}
