//! The layouts of an answer, assembled from the pieces of [`Writer`]: fifteen ways to
//! present a list of brands, plus comparisons, answers about one brand and answers that name
//! no brand.
//!
//! Kept apart from the pieces because this is the long, mostly-text part of the engine: each
//! layout is a sequence of paragraphs whose wording a reader can check against the answers in
//! `respuestas.jsonl`.

use rand::Rng;

use super::Chosen;
use super::wording::{bold, cap, join_list, lowercase_first};
use super::writing::Writer;
use crate::models::Layout;

impl Writer<'_> {
    /// A list of brands laid out as `layout`.
    pub(crate) fn list(&mut self, layout: Layout, chosen: &[Chosen<'_>]) {
        let names: Vec<String> = chosen.iter().map(|e| e.name.clone()).collect();
        let top = names[0].clone();
        let second = names.get(1).cloned();
        let spanish = self.spanish();
        match layout {
            Layout::Numbered => {
                self.opening();
                let i = self.list_intro();
                self.p(i);
                let lines: Vec<String> = chosen
                    .iter()
                    .enumerate()
                    .map(|(n, e)| format!("{}. {}: {}", n + 1, bold(&e.name), self.justification(e)))
                    .collect();
                self.p(&lines.join("\n"));
                if self.rng.random_bool(0.5) {
                    let c = self.one_advice();
                    self.p(c);
                }
                self.closing(&top, second.as_deref());
                self.health_warning();
            }
            Layout::Bullets => {
                self.opening();
                let i = self.list_intro();
                self.p(i);
                let lines: Vec<String> =
                    chosen.iter().map(|e| format!("- {} — {}", bold(&e.name), cap(&self.justification(e)))).collect();
                self.p(&lines.join("\n"));
                let c = self.one_advice();
                self.p(c);
                self.health_warning();
            }
            Layout::Prose => {
                self.opening();
                let mut paragraph = Vec::new();
                for (n, e) in chosen.iter().enumerate() {
                    let s = match (n, spanish) {
                        (0, true) => {
                            let lead = self.t(
                                &[
                                    "La opción que más se recomienda es",
                                    "En primer lugar aparece",
                                    "La más citada suele ser",
                                ],
                                &[],
                            );
                            let f = self.sentence(e, "");
                            format!("{lead} {}:{}", e.name, f.trim_end_matches('.').to_owned() + ".")
                        }
                        (0, false) => self.sentence(e, &e.name),
                        (_, true) => {
                            let with = self.t(
                                &[
                                    "Por otro lado,",
                                    "También vale la pena mirar",
                                    "Otra alternativa es",
                                    "En un segundo grupo está",
                                ],
                                &[],
                            );
                            match with {
                                "Por otro lado," => self.sentence(e, &format!("Por otro lado, {}", e.name)),
                                _ => {
                                    let f = self.sentence(e, "");
                                    format!("{with} {}, que{}", e.name, f)
                                }
                            }
                        }
                        (_, false) => {
                            let with = self.t(&[], &["Another option is", "It's also worth looking at"]);
                            let f = self.sentence(e, "");
                            format!("{with} {}, which{}", e.name, f)
                        }
                    };
                    paragraph.push(s);
                    if paragraph.len() == 2 {
                        let text = paragraph.join(" ");
                        self.p(&text);
                        paragraph.clear();
                    }
                }
                if !paragraph.is_empty() {
                    let text = paragraph.join(" ");
                    self.p(&text);
                }
                if self.rng.random_bool(0.6) {
                    let c = self.one_advice();
                    self.p(c);
                }
                self.health_warning();
            }
            Layout::Favourite => {
                let s = if self.ind.health {
                    if spanish {
                        format!(
                            "Una de las opciones más mencionadas es {}: {}",
                            bold(&top),
                            self.justification(&chosen[0])
                        )
                    } else {
                        format!(
                            "One of the most mentioned options is {}: {}",
                            bold(&top),
                            self.justification(&chosen[0])
                        )
                    }
                } else if spanish {
                    format!("Si tengo que elegir una, me quedo con {}: {}", bold(&top), self.justification(&chosen[0]))
                } else {
                    format!("If I had to pick one, I'd go with {}: {}", bold(&top), self.justification(&chosen[0]))
                };
                self.p(&s);
                if chosen.len() > 1 {
                    let lines: Vec<String> =
                        chosen[1..].iter().map(|e| format!("- {}: {}", e.name, self.justification(e))).collect();
                    let heading = if spanish { "Como alternativas:" } else { "Alternatives:" };
                    self.p(&format!("{heading}\n{}", lines.join("\n")));
                }
                let c = self.one_advice();
                self.p(c);
                self.health_warning();
            }
            Layout::ByProfile => {
                self.opening();
                self.p(if spanish { "Depende mucho del perfil:" } else { "It depends on your profile:" });
                let idxs: Vec<usize> = chosen.iter().map(|e| e.idx).collect();
                let profiles = self.profiles(&idxs);
                let lines: Vec<String> = chosen
                    .iter()
                    .zip(profiles)
                    .map(|(e, profile)| {
                        let pros = e.pros.first().copied().unwrap_or("");
                        if spanish {
                            format!("- Si {profile}: {}, que {pros}.", bold(&e.name))
                        } else {
                            format!("- If {profile}: {}, which {pros}.", bold(&e.name))
                        }
                    })
                    .collect();
                self.p(&lines.join("\n"));
                let caveats: Vec<String> = chosen
                    .iter()
                    .filter_map(|e| e.caveat.map(|c| (e, c)))
                    .map(|(e, c)| {
                        if spanish {
                            format!("Ojo con {}: {c}.", e.name)
                        } else {
                            format!("A caveat on {}: it {c}.", e.name)
                        }
                    })
                    .collect();
                if !caveats.is_empty() {
                    self.p(&caveats.join(" "));
                }
                self.health_warning();
            }
            Layout::ChecklistFirst => {
                let heading = if spanish {
                    "Antes de elegir, fijate en estos puntos:"
                } else {
                    "Before choosing, check these points:"
                };
                let cs = self.advice(3);
                let list: Vec<String> = cs.iter().enumerate().map(|(i, c)| format!("{}. {c}", i + 1)).collect();
                self.p(&format!("{heading}\n{}", list.join("\n")));
                let n = chosen.len().min(3);
                let s = match (spanish, n) {
                    (true, 1) => {
                        format!("Con eso en mente, la opción que más se recomienda es {top}.")
                    }
                    (false, 1) => {
                        format!("With that in mind, the most recommended option is {top}.")
                    }
                    (true, _) => format!(
                        "Con eso en mente, las opciones más recomendadas son {}.",
                        join_list(&names[..n], self.language)
                    ),
                    (false, _) => format!(
                        "With that in mind, the most recommended options are {}.",
                        join_list(&names[..n], self.language)
                    ),
                };
                self.one_sentence_per_brand(s, chosen);
                self.health_warning();
            }
            Layout::Table => {
                self.opening();
                let i = self.list_intro();
                self.p(i);
                let (h1, h2, h3) = if spanish {
                    ("Opción", "Por qué", "A tener en cuenta")
                } else {
                    ("Option", "Why", "Keep in mind")
                };
                let mut t = format!("| {h1} | {h2} | {h3} |\n|---|---|---|");
                for e in chosen {
                    let pros = cap(e.pros.first().copied().unwrap_or(""));
                    let caveat = e.caveat.map(cap).unwrap_or_else(|| "—".to_owned());
                    t.push_str(&format!("\n| {} | {pros} | {caveat} |", e.name));
                }
                self.p(&t);
                self.closing(&top, second.as_deref());
                self.health_warning();
            }
            Layout::Headings => {
                self.opening();
                let h = match (spanish, self.ind.health) {
                    (true, true) => "### Opciones que suelen mencionarse",
                    (true, false) => "### Las más recomendadas",
                    (false, true) => "### Options often mentioned",
                    (false, false) => "### Top picks",
                };
                self.p(h);
                for e in chosen {
                    let j = cap(&self.justification(e));
                    self.p(&format!("{}\n{j}", bold(&e.name)));
                }
                self.p(if spanish { "### Qué tener en cuenta" } else { "### What to keep in mind" });
                let cs: Vec<String> = self.advice(2).into_iter().map(|c| format!("- {c}")).collect();
                self.p(&cs.join("\n"));
                self.health_warning();
            }
            Layout::Short => {
                let n = chosen.len().min(3);
                let list = join_list(&names[..n], self.language);
                let s = match (self.ind.health, spanish, n) {
                    (true, true, 1) => format!("La opción que más se menciona es {list}."),
                    (true, true, _) => format!("Las opciones que más se mencionan son {list}."),
                    (true, false, 1) => format!("The option mentioned most is {list}."),
                    (true, false, _) => format!("The options mentioned most are {list}."),
                    (false, true, 1) => format!("La más recomendada suele ser {list}."),
                    (false, true, _) => format!("Las más recomendadas suelen ser {list}."),
                    (false, false, 1) => format!("The usual recommendation is {list}."),
                    (false, false, _) => format!("The usual recommendations are {list}."),
                };
                self.one_sentence_per_brand(s, chosen);
                self.health_warning();
            }
            Layout::ClarificationFirst => {
                let c = self.one_advice();
                let c = lowercase_first(c);
                let s = if spanish {
                    format!("Una aclaración antes: {c} Dicho esto, estas son las opciones que suelen aparecer primero:")
                } else {
                    format!("One caveat first: {c} That said, these are the options that usually come first:")
                };
                self.p(&s);
                let lines: Vec<String> = chosen
                    .iter()
                    .enumerate()
                    .map(|(n, e)| format!("{}. {} ({})", n + 1, bold(&e.name), e.pros.first().copied().unwrap_or("")))
                    .collect();
                self.p(&lines.join("\n"));
                self.closing(&top, second.as_deref());
                self.health_warning();
            }
            Layout::Faq => {
                let q1 = if spanish {
                    "**¿Cuál es la opción más recomendada en general?**"
                } else {
                    "**What's the most recommended option overall?**"
                };
                let j = self.sentence(&chosen[0], &top);
                self.p(&format!("{q1}\n{j}"));
                let q2 = if spanish { "**¿Y si busco alternativas?**" } else { "**What about alternatives?**" };
                let mut alt = Vec::new();
                for e in &chosen[1..] {
                    let f = self.sentence(e, &e.name);
                    alt.push(f);
                }
                self.p(&format!("{q2}\n{}", alt.join(" ")));
                let q3 = if spanish { "**¿Qué conviene revisar?**" } else { "**What should I check?**" };
                let c = self.one_advice();
                self.p(&format!("{q3}\n{c}"));
                self.health_warning();
            }
            Layout::Ranking => {
                let heading = if spanish {
                    "Ranking orientativo, según reseñas y condiciones actuales:"
                } else {
                    "An indicative ranking, based on reviews and current conditions:"
                };
                self.p(heading);
                let mut score = 9.0_f64;
                let mut lines = Vec::new();
                for (n, e) in chosen.iter().enumerate() {
                    let j = self.justification(e);
                    let score_text =
                        if spanish { format!("{score:.1}").replace('.', ",") } else { format!("{score:.1}") };
                    lines.push(format!("{}. {} ({score_text}/10): {j}", n + 1, bold(&e.name)));
                    score -= self.rng.random_range(0.2..0.8);
                }
                self.p(&lines.join("\n"));
                self.closing(&top, second.as_deref());
            }
            Layout::ProsCons => {
                self.opening();
                for e in chosen {
                    let pros = e.pros.first().copied().unwrap_or("");
                    let caveat = match e.caveat {
                        Some(c) => c.to_owned(),
                        None => {
                            if spanish {
                                "conviene comparar condiciones antes de decidir".to_owned()
                            } else {
                                "compare conditions before deciding".to_owned()
                            }
                        }
                    };
                    let (a, b) = if spanish { ("A favor", "En contra") } else { ("Pros", "Cons") };
                    self.p(&format!("{}\n- {a}: {pros}.\n- {b}: {caveat}.", bold(&e.name)));
                }
                self.closing(&top, second.as_deref());
                self.health_warning();
            }
            Layout::Summary => {
                let i = self.list_intro();
                self.p(i);
                let lines: Vec<String> =
                    chosen.iter().map(|e| format!("- {}: {}", e.name, self.justification(e))).collect();
                self.p(&lines.join("\n"));
                let profile = self.profile(chosen.get(1).map_or(chosen[0].idx, |e| e.idx));
                let s = match (&second, spanish) {
                    (Some(d), true) => {
                        format!("**En resumen:** {top} para la mayoría; {d} si {profile}.")
                    }
                    (Some(d), false) => {
                        format!("**TL;DR:** {top} for most people; {d} if {profile}.")
                    }
                    (None, true) => format!("**En resumen:** {top} es la opción más completa."),
                    (None, false) => format!("**TL;DR:** {top} is the most complete option."),
                };
                self.p(&s);
                self.health_warning();
            }
            Layout::Forums => {
                let n = chosen.len().min(3);
                let s = match (spanish, n) {
                    (true, 1) => format!("En foros y reseñas hay un nombre que se repite: {top}."),
                    (false, 1) => format!("Forums and reviews keep mentioning one name: {top}."),
                    (true, _) => format!(
                        "En foros y reseñas se repiten siempre los mismos nombres: {}.",
                        join_list(&names[..n], self.language)
                    ),
                    (false, _) => format!(
                        "Forums and reviews keep mentioning the same names: {}.",
                        join_list(&names[..n], self.language)
                    ),
                };
                self.p(&s);
                for e in chosen {
                    let f = self.sentence(e, &e.name);
                    self.p(&f);
                }
                let c = self.one_advice();
                self.p(c);
                self.health_warning();
            }
        }
    }

    /// One paragraph: `lead`, then a sentence per brand ("Galicia tiene ..., aunque ...").
    fn one_sentence_per_brand(&mut self, lead: String, chosen: &[Chosen<'_>]) {
        let mut parts = vec![lead];
        for e in chosen {
            let f = self.sentence(e, &e.name);
            parts.push(f);
        }
        self.p(&parts.join(" "));
    }

    /// "A or B?": `l1` (the favourite, `chosen[0]`) against `l2`; `same_brand` when both labels are
    /// products of one brand.
    pub(crate) fn compare(&mut self, chosen: &[Chosen<'_>], l1: &str, l2: &str, same_brand: bool) {
        let spanish = self.spanish();
        let e1 = &chosen[0];
        // A same-brand pair has one chosen brand for both labels; other brands are extras.
        let e2 = if same_brand { None } else { chosen.get(1) };
        let rest: &[Chosen<'_>] = if same_brand {
            &chosen[1..]
        } else if chosen.len() > 2 {
            &chosen[2..]
        } else {
            &[]
        };
        let variant = self.rng.random_range(0..3);
        let i2 = e2.map_or(e1.idx, |e| e.idx);
        let pro1 = e1.pros.first().copied().unwrap_or("");
        let sibling = self.t(
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
            Some(e) => e.pros.first().copied().unwrap_or(pro1),
            None => sibling,
        };
        match variant {
            0 => {
                self.p(&format!("{} vs {}", bold(l1), bold(l2)));
                let (a, b) = (cap(pro1), cap(pro2));
                self.p(&format!("- {l1}: {a}.\n- {l2}: {b}."));
                let profile = self.profile(i2);
                let v = if spanish {
                    format!(
                        "Veredicto: para la mayoría, {l1} es la opción más redonda; {l2} tiene sentido si {profile}."
                    )
                } else {
                    format!("Verdict: for most people {l1} is the more complete choice; {l2} makes sense if {profile}.")
                };
                self.p(&v);
            }
            1 => {
                let s = if spanish {
                    format!(
                        "Las dos son buenas opciones, pero apuntan a perfiles distintos. {l1} {pro1}, mientras que {l2} {pro2}."
                    )
                } else {
                    format!("Both are good options, but they target different needs. {l1} {pro1}, while {l2} {pro2}.")
                };
                self.p(&s);
                if let Some(c) = e2.and_then(|e| e.caveat).or(e1.caveat) {
                    let s = if spanish {
                        format!("Un punto a considerar: {c}.")
                    } else {
                        format!("One thing to consider: it {c}.")
                    }
                    .replace(
                        "Un punto a considerar: ",
                        &format!(
                            "Un punto a considerar sobre {}: ",
                            if e2.and_then(|e| e.caveat).is_some() { l2 } else { l1 }
                        ),
                    );
                    self.p(&s);
                }
                let profile = self.profile(e1.idx);
                let s = if spanish {
                    format!("Si {profile}, iría por {l1}; si no, {l2} también cumple.")
                } else {
                    format!("If {profile}, I'd go with {l1}; otherwise {l2} also does the job.")
                };
                self.p(&s);
            }
            _ => {
                let intro = if spanish { "Comparación rápida:" } else { "Quick comparison:" };
                self.p(intro);
                let (h, f1, f2) = if spanish {
                    ("Criterio", "Punto fuerte", "A tener en cuenta")
                } else {
                    ("Criterion", "Strength", "Keep in mind")
                };
                let c1 = e1.caveat.map(cap).unwrap_or_else(|| "—".to_owned());
                let c2 = e2.and_then(|e| e.caveat).map(cap).unwrap_or_else(|| "—".to_owned());
                self.p(&format!(
                    "| {h} | {l1} | {l2} |\n|---|---|---|\n| {f1} | {} | {} |\n| {f2} | {c1} | {c2} |",
                    cap(pro1),
                    cap(pro2)
                ));
                let s = if spanish {
                    format!("En general, me inclino por {l1}, pero la diferencia no es enorme.")
                } else {
                    format!("Overall I lean towards {l1}, but the gap is not huge.")
                };
                self.p(&s);
            }
        }
        if !rest.is_empty() {
            let names: Vec<String> = rest.iter().map(|e| e.name.clone()).collect();
            let s = if spanish {
                format!("Si ninguna te convence, mirá también {}.", join_list(&names, self.language))
            } else {
                format!("If neither convinces you, also look at {}.", join_list(&names, self.language))
            };
            self.p(&s);
        }
        self.health_warning();
    }

    /// "Is A good for ...?": A first, alternatives after.
    pub(crate) fn about_brand(&mut self, chosen: &[Chosen<'_>]) {
        let spanish = self.spanish();
        let e = &chosen[0];
        if self.rng.random_bool(0.5) {
            let lead = if self.ind.health {
                if spanish {
                    format!("{} es una opción conocida y respaldada:", e.name)
                } else {
                    format!("{} is a well-known, established option:", e.name)
                }
            } else if spanish {
                format!("En general, {} tiene buena reputación:", e.name)
            } else {
                format!("Overall, {} has a good reputation:", e.name)
            };
            let pros: Vec<String> = e.pros.iter().map(|p| format!("- {}.", cap(p))).collect();
            self.p(&format!("{lead}\n{}", pros.join("\n")));
            if let Some(c) = e.caveat {
                self.p(&if spanish {
                    format!("A tener en cuenta: {c}.")
                } else {
                    format!("Keep in mind that it {c}.")
                });
            }
        } else {
            let f = self.sentence(e, &e.name);
            let s = if spanish {
                format!("Sí, es una opción razonable. {f}")
            } else {
                format!("Yes, it's a reasonable choice. {f}")
            };
            self.p(&s);
            let c = self.one_advice();
            self.p(c);
        }
        if chosen.len() > 1 {
            let names: Vec<String> = chosen[1..].iter().map(|x| x.name.clone()).collect();
            let s = if spanish {
                format!("Si querés comparar, mirá también {}.", join_list(&names, self.language))
            } else {
                format!("If you want to compare, also look at {}.", join_list(&names, self.language))
            };
            self.p(&s);
        }
        self.health_warning();
    }

    /// Answers that name no tracked brand: criteria, a clarifying question, or (health)
    /// a referral to a doctor.
    pub(crate) fn brandless_answer(&mut self) {
        let spanish = self.spanish();
        let variant = self.rng.random_range(0..3);
        if self.ind.health && variant != 1 {
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
            let heading = if spanish {
                "Mientras tanto, algunas pautas generales:"
            } else {
                "In the meantime, some general guidance:"
            };
            let cs: Vec<String> = self.advice(3).into_iter().map(|c| format!("- {c}")).collect();
            self.p(&format!("{heading}\n{}", cs.join("\n")));
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
        match variant {
            0 => {
                let s = if spanish {
                    "No hay una única respuesta, porque depende de tu situación. Algunos criterios para decidir:"
                } else {
                    "There is no single answer; it depends on your situation. Some criteria to decide:"
                };
                let cs: Vec<String> = self.advice(4).into_iter().map(|c| format!("- {c}")).collect();
                self.p(&format!("{s}\n{}", cs.join("\n")));
                self.p(if spanish {
                    "Si me contás un poco más de tu caso, te ayudo a afinar la elección."
                } else {
                    "If you tell me more about your case, I can help narrow it down."
                });
            }
            1 => {
                self.opening();
                let cs = self.advice(3);
                for c in cs {
                    self.p(c);
                }
                let closing = match (self.ind.health, spanish) {
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
                self.p(closing);
            }
            _ => {
                let heading = if spanish { "Lo que yo haría:" } else { "What I would do:" };
                let cs: Vec<String> =
                    self.advice(4).into_iter().enumerate().map(|(i, c)| format!("{}. {c}", i + 1)).collect();
                self.p(&format!("{heading}\n{}", cs.join("\n")));
                let s = self.t(
                    &["Con eso vas a poder comparar con criterio propio.", "Así evitás sorpresas más adelante."],
                    &["That way you can compare on your own terms.", "That avoids surprises later on."],
                );
                self.p(s);
            }
        }
    }
}
