//! The layouts of an answer, assembled from the pieces of [`Escritor`]: fifteen ways to
//! present a list of brands, plus comparisons, answers about one brand and answers that name
//! no brand.
//!
//! Kept apart from the pieces because this is the long, mostly-text part of the engine: each
//! layout is a sequence of paragraphs whose wording a reader can check against the answers in
//! `respuestas.jsonl`.

use rand::Rng;

use super::Elegida;
use super::redaccion::Escritor;
use super::texto::{cap, enumerar, minuscula, negrita};
use crate::modelos::Estructura;

impl Escritor<'_> {
    /// A list of brands laid out as `estructura`.
    pub(crate) fn lista(&mut self, estructura: Estructura, el: &[Elegida<'_>]) {
        let nombres: Vec<String> = el.iter().map(|e| e.nombre.clone()).collect();
        let top = nombres[0].clone();
        let dos = nombres.get(1).cloned();
        let es_ = self.es();
        match estructura {
            Estructura::Numerada => {
                self.apertura();
                let i = self.intro_lista();
                self.p(i);
                let lineas: Vec<String> = el
                    .iter()
                    .enumerate()
                    .map(|(n, e)| format!("{}. {}: {}", n + 1, negrita(&e.nombre), self.justificacion(e)))
                    .collect();
                self.p(&lineas.join("\n"));
                if self.rng.random_bool(0.5) {
                    let c = self.consejo();
                    self.p(c);
                }
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Guiones => {
                self.apertura();
                let i = self.intro_lista();
                self.p(i);
                let lineas: Vec<String> =
                    el.iter().map(|e| format!("- {} — {}", negrita(&e.nombre), cap(&self.justificacion(e)))).collect();
                self.p(&lineas.join("\n"));
                let c = self.consejo();
                self.p(c);
                self.aviso_salud();
            }
            Estructura::Prosa => {
                self.apertura();
                let mut parrafo = Vec::new();
                for (n, e) in el.iter().enumerate() {
                    let s = match (n, es_) {
                        (0, true) => {
                            let lead = self.t(
                                &[
                                    "La opción que más se recomienda es",
                                    "En primer lugar aparece",
                                    "La más citada suele ser",
                                ],
                                &[],
                            );
                            let f = self.frase(e, "");
                            format!("{lead} {}:{}", e.nombre, f.trim_end_matches('.').to_owned() + ".")
                        }
                        (0, false) => self.frase(e, &e.nombre),
                        (_, true) => {
                            let con = self.t(
                                &[
                                    "Por otro lado,",
                                    "También vale la pena mirar",
                                    "Otra alternativa es",
                                    "En un segundo grupo está",
                                ],
                                &[],
                            );
                            match con {
                                "Por otro lado," => self.frase(e, &format!("Por otro lado, {}", e.nombre)),
                                _ => {
                                    let f = self.frase(e, "");
                                    format!("{con} {}, que{}", e.nombre, f)
                                }
                            }
                        }
                        (_, false) => {
                            let con = self.t(&[], &["Another option is", "It's also worth looking at"]);
                            let f = self.frase(e, "");
                            format!("{con} {}, which{}", e.nombre, f)
                        }
                    };
                    parrafo.push(s);
                    if parrafo.len() == 2 {
                        let texto = parrafo.join(" ");
                        self.p(&texto);
                        parrafo.clear();
                    }
                }
                if !parrafo.is_empty() {
                    let texto = parrafo.join(" ");
                    self.p(&texto);
                }
                if self.rng.random_bool(0.6) {
                    let c = self.consejo();
                    self.p(c);
                }
                self.aviso_salud();
            }
            Estructura::Favorita => {
                let s = if self.ind.salud {
                    if es_ {
                        format!(
                            "Una de las opciones más mencionadas es {}: {}",
                            negrita(&top),
                            self.justificacion(&el[0])
                        )
                    } else {
                        format!(
                            "One of the most mentioned options is {}: {}",
                            negrita(&top),
                            self.justificacion(&el[0])
                        )
                    }
                } else if es_ {
                    format!("Si tengo que elegir una, me quedo con {}: {}", negrita(&top), self.justificacion(&el[0]))
                } else {
                    format!("If I had to pick one, I'd go with {}: {}", negrita(&top), self.justificacion(&el[0]))
                };
                self.p(&s);
                if el.len() > 1 {
                    let lineas: Vec<String> =
                        el[1..].iter().map(|e| format!("- {}: {}", e.nombre, self.justificacion(e))).collect();
                    let enc = if es_ { "Como alternativas:" } else { "Alternatives:" };
                    self.p(&format!("{enc}\n{}", lineas.join("\n")));
                }
                let c = self.consejo();
                self.p(c);
                self.aviso_salud();
            }
            Estructura::PorPerfil => {
                self.apertura();
                self.p(if es_ { "Depende mucho del perfil:" } else { "It depends on your profile:" });
                let idxs: Vec<usize> = el.iter().map(|e| e.idx).collect();
                let perfiles = self.perfiles(&idxs);
                let lineas: Vec<String> = el
                    .iter()
                    .zip(perfiles)
                    .map(|(e, perfil)| {
                        let pro = e.pro.first().copied().unwrap_or("");
                        if es_ {
                            format!("- Si {perfil}: {}, que {pro}.", negrita(&e.nombre))
                        } else {
                            format!("- If {perfil}: {}, which {pro}.", negrita(&e.nombre))
                        }
                    })
                    .collect();
                self.p(&lineas.join("\n"));
                let contras: Vec<String> = el
                    .iter()
                    .filter_map(|e| e.contra.map(|c| (e, c)))
                    .map(|(e, c)| {
                        if es_ {
                            format!("Ojo con {}: {c}.", e.nombre)
                        } else {
                            format!("A caveat on {}: it {c}.", e.nombre)
                        }
                    })
                    .collect();
                if !contras.is_empty() {
                    self.p(&contras.join(" "));
                }
                self.aviso_salud();
            }
            Estructura::ChecklistPrimero => {
                let enc = if es_ {
                    "Antes de elegir, fijate en estos puntos:"
                } else {
                    "Before choosing, check these points:"
                };
                let cs = self.consejos(3);
                let lista: Vec<String> = cs.iter().enumerate().map(|(i, c)| format!("{}. {c}", i + 1)).collect();
                self.p(&format!("{enc}\n{}", lista.join("\n")));
                let n = el.len().min(3);
                let s = match (es_, n) {
                    (true, 1) => {
                        format!("Con eso en mente, la opción que más se recomienda es {top}.")
                    }
                    (false, 1) => {
                        format!("With that in mind, the most recommended option is {top}.")
                    }
                    (true, _) => format!(
                        "Con eso en mente, las opciones más recomendadas son {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                    (false, _) => format!(
                        "With that in mind, the most recommended options are {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                };
                self.con_una_frase_por_marca(s, el);
                self.aviso_salud();
            }
            Estructura::Tabla => {
                self.apertura();
                let i = self.intro_lista();
                self.p(i);
                let (h1, h2, h3) =
                    if es_ { ("Opción", "Por qué", "A tener en cuenta") } else { ("Option", "Why", "Keep in mind") };
                let mut t = format!("| {h1} | {h2} | {h3} |\n|---|---|---|");
                for e in el {
                    let pro = cap(e.pro.first().copied().unwrap_or(""));
                    let contra = e.contra.map(cap).unwrap_or_else(|| "—".to_owned());
                    t.push_str(&format!("\n| {} | {pro} | {contra} |", e.nombre));
                }
                self.p(&t);
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Encabezados => {
                self.apertura();
                let h = match (es_, self.ind.salud) {
                    (true, true) => "### Opciones que suelen mencionarse",
                    (true, false) => "### Las más recomendadas",
                    (false, true) => "### Options often mentioned",
                    (false, false) => "### Top picks",
                };
                self.p(h);
                for e in el {
                    let j = cap(&self.justificacion(e));
                    self.p(&format!("{}\n{j}", negrita(&e.nombre)));
                }
                self.p(if es_ { "### Qué tener en cuenta" } else { "### What to keep in mind" });
                let cs: Vec<String> = self.consejos(2).into_iter().map(|c| format!("- {c}")).collect();
                self.p(&cs.join("\n"));
                self.aviso_salud();
            }
            Estructura::Corta => {
                let n = el.len().min(3);
                let lista = enumerar(&nombres[..n], self.idioma);
                let s = match (self.ind.salud, es_, n) {
                    (true, true, 1) => format!("La opción que más se menciona es {lista}."),
                    (true, true, _) => format!("Las opciones que más se mencionan son {lista}."),
                    (true, false, 1) => format!("The option mentioned most is {lista}."),
                    (true, false, _) => format!("The options mentioned most are {lista}."),
                    (false, true, 1) => format!("La más recomendada suele ser {lista}."),
                    (false, true, _) => format!("Las más recomendadas suelen ser {lista}."),
                    (false, false, 1) => format!("The usual recommendation is {lista}."),
                    (false, false, _) => format!("The usual recommendations are {lista}."),
                };
                self.con_una_frase_por_marca(s, el);
                self.aviso_salud();
            }
            Estructura::AclaracionPrimero => {
                let c = self.consejo();
                let c = minuscula(c);
                let s = if es_ {
                    format!("Una aclaración antes: {c} Dicho esto, estas son las opciones que suelen aparecer primero:")
                } else {
                    format!("One caveat first: {c} That said, these are the options that usually come first:")
                };
                self.p(&s);
                let lineas: Vec<String> = el
                    .iter()
                    .enumerate()
                    .map(|(n, e)| {
                        format!("{}. {} ({})", n + 1, negrita(&e.nombre), e.pro.first().copied().unwrap_or(""))
                    })
                    .collect();
                self.p(&lineas.join("\n"));
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Faq => {
                let q1 = if es_ {
                    "**¿Cuál es la opción más recomendada en general?**"
                } else {
                    "**What's the most recommended option overall?**"
                };
                let j = self.frase(&el[0], &top);
                self.p(&format!("{q1}\n{j}"));
                let q2 = if es_ { "**¿Y si busco alternativas?**" } else { "**What about alternatives?**" };
                let mut alt = Vec::new();
                for e in &el[1..] {
                    let f = self.frase(e, &e.nombre);
                    alt.push(f);
                }
                self.p(&format!("{q2}\n{}", alt.join(" ")));
                let q3 = if es_ { "**¿Qué conviene revisar?**" } else { "**What should I check?**" };
                let c = self.consejo();
                self.p(&format!("{q3}\n{c}"));
                self.aviso_salud();
            }
            Estructura::Ranking => {
                let enc = if es_ {
                    "Ranking orientativo, según reseñas y condiciones actuales:"
                } else {
                    "An indicative ranking, based on reviews and current conditions:"
                };
                self.p(enc);
                let mut nota = 9.0_f64;
                let mut lineas = Vec::new();
                for (n, e) in el.iter().enumerate() {
                    let j = self.justificacion(e);
                    let puntaje = if es_ { format!("{nota:.1}").replace('.', ",") } else { format!("{nota:.1}") };
                    lineas.push(format!("{}. {} ({puntaje}/10): {j}", n + 1, negrita(&e.nombre)));
                    nota -= self.rng.random_range(0.2..0.8);
                }
                self.p(&lineas.join("\n"));
                self.cierre(&top, dos.as_deref());
            }
            Estructura::ProsContras => {
                self.apertura();
                for e in el {
                    let pro = e.pro.first().copied().unwrap_or("");
                    let contra = match e.contra {
                        Some(c) => c.to_owned(),
                        None => {
                            if es_ {
                                "conviene comparar condiciones antes de decidir".to_owned()
                            } else {
                                "compare conditions before deciding".to_owned()
                            }
                        }
                    };
                    let (a, b) = if es_ { ("A favor", "En contra") } else { ("Pros", "Cons") };
                    self.p(&format!("{}\n- {a}: {pro}.\n- {b}: {contra}.", negrita(&e.nombre)));
                }
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Resumen => {
                let i = self.intro_lista();
                self.p(i);
                let lineas: Vec<String> =
                    el.iter().map(|e| format!("- {}: {}", e.nombre, self.justificacion(e))).collect();
                self.p(&lineas.join("\n"));
                let perfil = self.perfil(el.get(1).map_or(el[0].idx, |e| e.idx));
                let s = match (&dos, es_) {
                    (Some(d), true) => {
                        format!("**En resumen:** {top} para la mayoría; {d} si {perfil}.")
                    }
                    (Some(d), false) => {
                        format!("**TL;DR:** {top} for most people; {d} if {perfil}.")
                    }
                    (None, true) => format!("**En resumen:** {top} es la opción más completa."),
                    (None, false) => format!("**TL;DR:** {top} is the most complete option."),
                };
                self.p(&s);
                self.aviso_salud();
            }
            Estructura::Foros => {
                let n = el.len().min(3);
                let s = match (es_, n) {
                    (true, 1) => format!("En foros y reseñas hay un nombre que se repite: {top}."),
                    (false, 1) => format!("Forums and reviews keep mentioning one name: {top}."),
                    (true, _) => format!(
                        "En foros y reseñas se repiten siempre los mismos nombres: {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                    (false, _) => format!(
                        "Forums and reviews keep mentioning the same names: {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                };
                self.p(&s);
                for e in el {
                    let f = self.frase(e, &e.nombre);
                    self.p(&f);
                }
                let c = self.consejo();
                self.p(c);
                self.aviso_salud();
            }
        }
    }

    /// One paragraph: `lead`, then a sentence per brand ("Galicia tiene ..., aunque ...").
    fn con_una_frase_por_marca(&mut self, lead: String, el: &[Elegida<'_>]) {
        let mut partes = vec![lead];
        for e in el {
            let f = self.frase(e, &e.nombre);
            partes.push(f);
        }
        self.p(&partes.join(" "));
    }

    /// "A or B?": `l1` (the favourite, `el[0]`) against `l2`; `mismo` when both labels are
    /// products of one brand.
    pub(crate) fn comparar(&mut self, el: &[Elegida<'_>], l1: &str, l2: &str, mismo: bool) {
        let es_ = self.es();
        let e1 = &el[0];
        // A same-brand pair has one chosen brand for both labels; other brands are extras.
        let e2 = if mismo { None } else { el.get(1) };
        let resto: &[Elegida<'_>] = if mismo {
            &el[1..]
        } else if el.len() > 2 {
            &el[2..]
        } else {
            &[]
        };
        let variante = self.rng.random_range(0..3);
        let i2 = e2.map_or(e1.idx, |e| e.idx);
        let pro1 = e1.pro.first().copied().unwrap_or("");
        let hermano = self.t(
            &[
                "es la versión más completa, con más funciones y un precio bastante mayor",
                "apunta a un uso más exigente, con mejores materiales",
                "suma prestaciones que no todos necesitan, a un costo más alto",
            ],
            &[
                "is the more complete version, with more features and a higher price",
                "targets more demanding use, with better materials",
            ],
        );
        let pro2 = match e2 {
            Some(e) => e.pro.first().copied().unwrap_or(pro1),
            None => hermano,
        };
        match variante {
            0 => {
                self.p(&format!("{} vs {}", negrita(l1), negrita(l2)));
                let (a, b) = (cap(pro1), cap(pro2));
                self.p(&format!("- {l1}: {a}.\n- {l2}: {b}."));
                let perfil = self.perfil(i2);
                let v = if es_ {
                    format!(
                        "Veredicto: para la mayoría, {l1} es la opción más redonda; {l2} tiene sentido si {perfil}."
                    )
                } else {
                    format!("Verdict: for most people {l1} is the more complete choice; {l2} makes sense if {perfil}.")
                };
                self.p(&v);
            }
            1 => {
                let s = if es_ {
                    format!(
                        "Las dos son buenas opciones, pero apuntan a perfiles distintos. {l1} {pro1}, mientras que {l2} {pro2}."
                    )
                } else {
                    format!("Both are good options, but they target different needs. {l1} {pro1}, while {l2} {pro2}.")
                };
                self.p(&s);
                if let Some(c) = e2.and_then(|e| e.contra).or(e1.contra) {
                    let s = if es_ {
                        format!("Un punto a considerar: {c}.")
                    } else {
                        format!("One thing to consider: it {c}.")
                    }
                    .replace(
                        "Un punto a considerar: ",
                        &format!(
                            "Un punto a considerar sobre {}: ",
                            if e2.and_then(|e| e.contra).is_some() { l2 } else { l1 }
                        ),
                    );
                    self.p(&s);
                }
                let perfil = self.perfil(e1.idx);
                let s = if es_ {
                    format!("Si {perfil}, iría por {l1}; si no, {l2} también cumple.")
                } else {
                    format!("If {perfil}, I'd go with {l1}; otherwise {l2} also does the job.")
                };
                self.p(&s);
            }
            _ => {
                let intro = if es_ { "Comparación rápida:" } else { "Quick comparison:" };
                self.p(intro);
                let (h, f1, f2) = if es_ {
                    ("Criterio", "Punto fuerte", "A tener en cuenta")
                } else {
                    ("Criterion", "Strength", "Keep in mind")
                };
                let c1 = e1.contra.map(cap).unwrap_or_else(|| "—".to_owned());
                let c2 = e2.and_then(|e| e.contra).map(cap).unwrap_or_else(|| "—".to_owned());
                self.p(&format!(
                    "| {h} | {l1} | {l2} |\n|---|---|---|\n| {f1} | {} | {} |\n| {f2} | {c1} | {c2} |",
                    cap(pro1),
                    cap(pro2)
                ));
                let s = if es_ {
                    format!("En general, me inclino por {l1}, pero la diferencia no es enorme.")
                } else {
                    format!("Overall I lean towards {l1}, but the gap is not huge.")
                };
                self.p(&s);
            }
        }
        if !resto.is_empty() {
            let nombres: Vec<String> = resto.iter().map(|e| e.nombre.clone()).collect();
            let s = if es_ {
                format!("Si ninguna te convence, mirá también {}.", enumerar(&nombres, self.idioma))
            } else {
                format!("If neither convinces you, also look at {}.", enumerar(&nombres, self.idioma))
            };
            self.p(&s);
        }
        self.aviso_salud();
    }

    /// "Is A good for ...?": A first, alternatives after.
    pub(crate) fn sobre_marca(&mut self, el: &[Elegida<'_>]) {
        let es_ = self.es();
        let e = &el[0];
        if self.rng.random_bool(0.5) {
            let lead = if self.ind.salud {
                if es_ {
                    format!("{} es una opción conocida y respaldada:", e.nombre)
                } else {
                    format!("{} is a well-known, established option:", e.nombre)
                }
            } else if es_ {
                format!("En general, {} tiene buena reputación:", e.nombre)
            } else {
                format!("Overall, {} has a good reputation:", e.nombre)
            };
            let pros: Vec<String> = e.pro.iter().map(|p| format!("- {}.", cap(p))).collect();
            self.p(&format!("{lead}\n{}", pros.join("\n")));
            if let Some(c) = e.contra {
                self.p(&if es_ { format!("A tener en cuenta: {c}.") } else { format!("Keep in mind that it {c}.") });
            }
        } else {
            let f = self.frase(e, &e.nombre);
            let s = if es_ {
                format!("Sí, es una opción razonable. {f}")
            } else {
                format!("Yes, it's a reasonable choice. {f}")
            };
            self.p(&s);
            let c = self.consejo();
            self.p(c);
        }
        if el.len() > 1 {
            let nombres: Vec<String> = el[1..].iter().map(|x| x.nombre.clone()).collect();
            let s = if es_ {
                format!("Si querés comparar, mirá también {}.", enumerar(&nombres, self.idioma))
            } else {
                format!("If you want to compare, also look at {}.", enumerar(&nombres, self.idioma))
            };
            self.p(&s);
        }
        self.aviso_salud();
    }

    /// Answers that name no tracked brand: criteria, a clarifying question, or (health)
    /// a referral to a doctor.
    pub(crate) fn sin_marcas(&mut self) {
        let es_ = self.es();
        let variante = self.rng.random_range(0..3);
        if self.ind.salud && variante != 1 {
            let s = self.t(
                &[
                    "Lo más importante es que lo consultes con un médico, idealmente un especialista, que pueda evaluar tu caso.",
                    "No puedo indicarte un tratamiento específico: eso lo tiene que definir un profesional que te examine.",
                    "Es una consulta que conviene hacer con tu médico de cabecera o con un especialista.",
                ],
                &[
                    "The most important step is to see a doctor, ideally a specialist, who can assess your case.",
                    "I can't recommend a specific treatment: a professional who examines you has to decide that.",
                ],
            );
            self.p(s);
            let enc = if es_ {
                "Mientras tanto, algunas pautas generales:"
            } else {
                "In the meantime, some general guidance:"
            };
            let cs: Vec<String> = self.consejos(3).into_iter().map(|c| format!("- {c}")).collect();
            self.p(&format!("{enc}\n{}", cs.join("\n")));
            let s = self.t(
                &[
                    "Si los síntomas empeoran, aparecen fiebre o dolor intenso, consultá a la guardia.",
                    "Llevá a la consulta una lista de lo que ya probaste y de los medicamentos que tomás.",
                ],
                &[
                    "If symptoms get worse, seek urgent care.",
                    "Bring a list of what you've tried and the medicines you take.",
                ],
            );
            self.p(s);
            return;
        }
        match variante {
            0 => {
                let s = if es_ {
                    "No hay una única respuesta, porque depende de tu situación. Algunos criterios para decidir:"
                } else {
                    "There is no single answer; it depends on your situation. Some criteria to decide:"
                };
                let cs: Vec<String> = self.consejos(4).into_iter().map(|c| format!("- {c}")).collect();
                self.p(&format!("{s}\n{}", cs.join("\n")));
                self.p(if es_ {
                    "Si me contás un poco más de tu caso, te ayudo a afinar la elección."
                } else {
                    "If you tell me more about your case, I can help narrow it down."
                });
            }
            1 => {
                self.apertura();
                let cs = self.consejos(3);
                for c in cs {
                    self.p(c);
                }
                let cierre = match (self.ind.salud, es_) {
                    (true, true) => {
                        "No puedo recomendarte un producto o medicamento puntual: eso lo tiene que indicar un profesional que conozca tu caso."
                    }
                    (true, false) => {
                        "I can't recommend a specific product or medicine: a professional who knows your case has to decide that."
                    }
                    (false, true) => {
                        "Prefiero no recomendarte una marca puntual sin conocer más detalles: las condiciones cambian seguido y conviene comparar con datos actualizados."
                    }
                    (false, false) => {
                        "I'd rather not recommend a specific brand without more details: conditions change often and it's best to compare with up-to-date information."
                    }
                };
                self.p(cierre);
            }
            _ => {
                let enc = if es_ { "Lo que yo haría:" } else { "What I would do:" };
                let cs: Vec<String> =
                    self.consejos(4).into_iter().enumerate().map(|(i, c)| format!("{}. {c}", i + 1)).collect();
                self.p(&format!("{enc}\n{}", cs.join("\n")));
                let s = self.t(
                    &["Con eso vas a poder comparar con criterio propio.", "Así evitás sorpresas más adelante."],
                    &["That way you can compare on your own terms.", "That avoids surprises later on."],
                );
                self.p(s);
            }
        }
    }
}
