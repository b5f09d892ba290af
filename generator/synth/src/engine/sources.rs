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

use super::Chosen;
use super::wording::{pick_of, relevant, slug, spanish};
use crate::industry::BaseQuestion;
use crate::industry::{Industry, MediaSite, TrackedBrand};
use crate::models::Model;

/// Sources: media and review sites of the region, brand pages for some named brands, and
/// now and then a brand page for a brand the text does not name (a ghost citation).
pub(crate) fn cite(
    ind: &Industry,
    question: &BaseQuestion,
    model: &Model,
    chosen: &[Chosen<'_>],
    rng: &mut ChaCha8Rng,
) -> Vec<Source> {
    let language = question.language.as_str();
    let (fmin, fmax) = model.style.source_range;
    let mut n_media = rng.random_range(fmin..=fmax);
    let mut sources: Vec<Source> = Vec::new();
    for e in chosen {
        if sources.len() < 3 && rng.random_bool(model.style.cite_brand) {
            sources.push(brand_page(ind, &ind.brands[e.idx], language, rng));
            n_media = n_media.saturating_sub(1);
        }
    }
    if rng.random_bool(model.style.ghost_citation) {
        let named: Vec<usize> = chosen.iter().map(|e| e.idx).collect();
        let others: Vec<usize> = (0..ind.brands.len()).filter(|i| !named.contains(i)).collect();
        if let Some(&i) = others.choose(rng) {
            sources.push(brand_page(ind, &ind.brands[i], language, rng));
        }
    }
    let media: Vec<&MediaSite> = ind
        .sources
        .media
        .iter()
        .filter(|m| m.language == language || m.language == "*" || rng.random_bool(0.15))
        .collect();
    for _ in 0..n_media {
        if sources.len() >= 6 {
            break;
        }
        let Some(site) = media.choose(rng) else {
            break;
        };
        let bank = ind.titles.in_language(if site.language == "en" { "en" } else { language });
        let values = question.values();
        let title = relevant(rng, bank, &values, 2).into_iter().next().unwrap_or("");
        let url = media_url(site, title, rng);
        if sources.iter().any(|f| f.url == url) {
            continue;
        }
        sources.push(Source { url, title: format!("{title} - {}", site.name) });
    }
    sources.shuffle(rng);
    sources
}

/// Chance that the search behind an answer found the site of a brand the answer names but does
/// not cite (consulted, not cited).
const CONSULT_NAMED: f64 = 0.35;
/// Chance that it found the site of a brand the answer does not name at all.
const CONSULT_OTHER: f64 = 0.2;

/// Every source the provider consulted for an answer that cites `cited` and names the brands
/// `named` (indexes): the cited ones, some pages of named brands it did not cite, now and then
/// a page of a brand it does not name, and media articles it read and did not cite. Drawn from
/// its own stream (`rng`), so the answer and its cited sources do not depend on it.
pub(crate) fn consulted(
    ind: &Industry,
    question: &BaseQuestion,
    cited: &[Source],
    named: &[usize],
    rng: &mut ChaCha8Rng,
) -> Vec<Source> {
    let language = question.language.as_str();
    let mut sources: Vec<Source> = cited.to_vec();
    let cites = |i: usize, sources: &[Source]| {
        ind.brands[i].domains.iter().any(|d| sources.iter().any(|s| on_domain(&s.url, d)))
    };
    for &i in named {
        if !cites(i, cited) && rng.random_bool(CONSULT_NAMED) {
            sources.push(brand_page(ind, &ind.brands[i], language, rng));
        }
    }
    if rng.random_bool(CONSULT_OTHER) {
        let others: Vec<usize> = (0..ind.brands.len()).filter(|i| !named.contains(i)).collect();
        if let Some(&i) = others.choose(rng) {
            sources.push(brand_page(ind, &ind.brands[i], language, rng));
        }
    }
    let mut media: Vec<&MediaSite> =
        ind.sources.media.iter().filter(|m| m.language == language || m.language == "*").collect();
    if media.is_empty() {
        media = ind.sources.media.iter().collect();
    }
    // Articles read and not cited: as many new ones as drawn, a few tries each (an article
    // already in the list is the same page, not another one read).
    let wanted = rng.random_range(2..=5);
    let (mut added, mut tries) = (0, 0);
    while added < wanted && tries < 4 * wanted {
        tries += 1;
        let Some(site) = media.choose(rng) else { break };
        let bank = ind.titles.in_language(if site.language == "en" { "en" } else { language });
        let values = question.values();
        let title = relevant(rng, bank, &values, 4).into_iter().next().unwrap_or("");
        let url = media_url(site, title, rng);
        if !sources.iter().any(|f| f.url == url) {
            sources.push(Source { url, title: format!("{title} - {}", site.name) });
            added += 1;
        }
    }
    // Two pages of one brand may come out the same; keep the first.
    let mut seen = std::collections::BTreeSet::new();
    sources.retain(|s| seen.insert(s.url.clone()));
    sources.shuffle(rng);
    sources
}

/// True when `url`'s host is `domain` or a subdomain of it.
fn on_domain(url: &str, domain: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#', ':']).next().unwrap_or("");
    host == domain || host.ends_with(&format!(".{domain}"))
}

/// An article URL on a media site, shaped like that site's URLs.
pub(crate) fn media_url(site: &MediaSite, title: &str, rng: &mut ChaCha8Rng) -> String {
    let month = rng.random_range(1..=12u32);
    let day = rng.random_range(1..=28u32);
    let year = if month >= 6 { 2025 } else { 2026 };
    let (year, month) = if year == 2026 && month > 2 { (2025, month) } else { (year, month) };
    let path = site.path.replace("{fecha}", &format!("{year}/{month:02}/{day:02}"));
    let s = slug(title);
    let host = &site.host;
    if host.contains("reddit.com") {
        let id: String =
            (0..6).map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)])).collect();
        format!("https://{host}{path}{id}/{}/", s.replace('-', "_"))
    } else if host.contains("lanacion.com.ar") {
        format!("https://{host}{path}{s}-nid{day:02}{month:02}{year}/")
    } else if host.contains("clarin.com") {
        let id: String = (0..9)
            .map(|_| char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"[rng.random_range(0..49)]))
            .collect();
        format!("https://{host}{path}{s}_0_{id}.html")
    } else if host.contains("tripadvisor") {
        let g: u32 = rng.random_range(300_000..330_000);
        format!("https://{host}/Hotels-g{g}-{}.html", s.replace('-', "_"))
    } else {
        format!("https://{host}{path}{s}/")
    }
}

/// A page on one of the brand's domains (www, bare, `ayuda.` or `blog.`).
pub(crate) fn brand_page(ind: &Industry, m: &TrackedBrand, language: &str, rng: &mut ChaCha8Rng) -> Source {
    let domain = pick_of(rng, &m.domains);
    let u: f64 = rng.random();
    let host = if u < 0.6 {
        format!("www.{domain}")
    } else if u < 0.8 {
        domain.to_owned()
    } else if u < 0.9 {
        format!("ayuda.{domain}")
    } else {
        format!("blog.{domain}")
    };
    let (path, title_es, title_en) = ind
        .sources
        .pages
        .choose(rng)
        .map_or(("/", "{marca}", "{marca}"), |p| (p.path.as_str(), p.title.as_str(), p.title_en.as_str()));
    let title = if spanish(language) { title_es } else { title_en }.replace("{marca}", &m.name);
    Source { url: format!("https://{host}{path}"), title }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::engine::fixture::{industry, model, rng};

    #[test]
    fn a_brand_page_is_on_one_of_its_domains() {
        let ind = industry();
        let beta = &ind.brands[ind.brand_index("beta")];
        let mut hosts = BTreeSet::new();
        for seed in 0..200 {
            let s = brand_page(&ind, beta, "es", &mut rng(seed));
            let host = s.url.trim_start_matches("https://").trim_end_matches("/personas").to_owned();
            assert!(s.url.ends_with("/personas"), "{}", s.url);
            assert!(host.ends_with("beta.com") || host.ends_with("betabank.com"), "{host}");
            assert_eq!(s.title, "Personas | Beta");
            hosts.insert(host);
        }
        for h in ["www.beta.com", "beta.com", "ayuda.beta.com", "blog.betabank.com"] {
            assert!(hosts.contains(h), "{h} in {hosts:?}");
        }
        assert_eq!(brand_page(&ind, beta, "en", &mut rng(1)).title, "Personal | Beta");
    }

    #[test]
    fn media_urls_look_like_the_sites_own() {
        let ind = industry();
        let site = |host: &str| ind.sources.media.iter().find(|m| m.host == host).expect("medio");
        let title = "Qué banco conviene en 2026";
        for seed in 0..200 {
            let u = media_url(site("www.infobae.com"), title, &mut rng(seed));
            let date = u
                .strip_prefix("https://www.infobae.com/economia/")
                .and_then(|r| r.strip_suffix("/que-banco-conviene-en-2026/"))
                .unwrap_or_else(|| panic!("{u}"));
            // A date between March 2025 and February 2026, before the runs.
            let (year, rest) = date.split_once('/').expect("year");
            let month: u32 = rest[..2].parse().expect("month");
            assert!(matches!((year, month), ("2025", 3..=12) | ("2026", 1..=2)), "{date}");
            let u = media_url(site("www.reddit.com"), title, &mut rng(seed));
            let id = u.strip_prefix("https://www.reddit.com/r/merval/comments/").expect("reddit path");
            assert!(id.ends_with("/que_banco_conviene_en_2026/") && id.find('/') == Some(6), "{u}");
            let u = media_url(site("www.lanacion.com.ar"), title, &mut rng(seed));
            assert!(u.starts_with("https://www.lanacion.com.ar/economia/que-banco-conviene-en-2026-nid"), "{u}");
        }
        let u = media_url(site("www.reuters.com"), "Best banks in Argentina", &mut rng(1));
        assert_eq!(u, "https://www.reuters.com/world/best-banks-in-argentina/");
    }

    #[test]
    fn named_brands_are_cited_on_their_own_sites_ghosts_on_others() {
        let ind = industry();
        let q = &ind.questions[0];
        let chosen = vec![
            Chosen { idx: 0, name: "Banco Alfa".into(), pros: vec![], caveat: None },
            Chosen { idx: 1, name: "Beta".into(), pros: vec![], caveat: None },
        ];
        let owner = |url: &str| ind.brands.iter().position(|m| m.domains.iter().any(|d| url.contains(d.as_str())));
        let mut always = model("gpt-5");
        (always.style.cite_brand, always.style.ghost_citation) = (1.0, 0.0);
        let mut ghost = model("gpt-5");
        (ghost.style.cite_brand, ghost.style.ghost_citation) = (0.0, 1.0);
        for seed in 0..100 {
            let sources = cite(&ind, q, &always, &chosen, &mut rng(seed));
            let brands: BTreeSet<usize> = sources.iter().filter_map(|s| owner(&s.url)).collect();
            assert_eq!(brands, BTreeSet::from([0, 1]));
            assert!(sources.len() <= 6);
            let urls: BTreeSet<&str> = sources.iter().map(|s| s.url.as_str()).collect();
            assert_eq!(urls.len(), sources.len(), "no URL twice");
            let sources = cite(&ind, q, &ghost, &chosen, &mut rng(seed));
            let brands: Vec<usize> = sources.iter().filter_map(|s| owner(&s.url)).collect();
            assert_eq!(brands, [2], "the one brand the answer does not name");
        }
    }
}
