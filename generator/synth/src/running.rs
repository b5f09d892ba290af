//! The runner's purchase journey: running shoes and GPS watches, compared in "twin" pairs.
//!
//! A journey study: questions follow the stages of a purchase (discovery, comparison,
//! decision, after-sales) and the comparison stage pits twin products against each other,
//! either across brands (Pegasus vs Adizero) or within one brand (Forerunner 265 vs 965).
//! Shoe brands never answer watch questions and vice versa (`debil_factor` 0).

use generator::model::Metric;

use super::comun::{METRICAS_TODAS, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, PreguntaBase, Textos, TipoPregunta, o_entre};

const CORREDORES: &[&str] = &[
    "Empecé a correr hace dos meses.",
    "Corro 30 km por semana y preparo un 21K.",
    "Entreno para mi primer maratón en Buenos Aires.",
    "Salgo a correr tres veces por semana por los bosques de Palermo.",
    "Corro trail en las sierras de Córdoba.",
    "Tengo 45 años y vuelvo a correr después de una lesión.",
];

const CORREDORES_EN: &[&str] =
    &["I'm a beginner runner living in Buenos Aires.", "I'm training for the Buenos Aires marathon."];

/// (stage, product, kind, text): questions without a pair.
const SIN_PAR: &[(&str, &str, char, &str)] = &[
    ("descubrimiento", "zapatillas", 'L', "¿Qué zapatillas de running me recomiendan?"),
    ("descubrimiento", "zapatillas", 'L', "¿Qué zapatillas con buena amortiguación se consiguen en Argentina?"),
    ("descubrimiento", "zapatillas", 'L', "¿Qué marcas de zapatillas son mejores si tengo pisada pronadora?"),
    ("descubrimiento", "relojes", 'L', "¿Qué reloj GPS para correr me recomiendan?"),
    ("descubrimiento", "relojes", 'L', "¿Qué smartwatch sirve para entrenar y medir la frecuencia cardíaca?"),
    ("decisión", "zapatillas", 'L', "Tengo un presupuesto de 150.000 pesos. ¿Qué zapatillas me compro?"),
    ("decisión", "zapatillas", 'L', "Ya me decidí por algo con mucha amortiguación. ¿Cuál compro?"),
    ("decisión", "relojes", 'L', "¿Qué reloj compro si mi presupuesto es limitado?"),
    ("decisión", "relojes", 'C', "¿Vale la pena pagar más por un reloj con mapas y música?"),
    ("postventa", "zapatillas", 'C', "¿Cada cuántos kilómetros hay que cambiar las zapatillas?"),
    ("postventa", "zapatillas", 'C', "¿Cómo lavo las zapatillas de running sin arruinarlas?"),
    (
        "postventa",
        "zapatillas",
        'L',
        "Se me rompió la malla de las zapatillas a los tres meses. ¿Qué marcas son más durables?",
    ),
    ("postventa", "relojes", 'C', "¿Cómo sincronizo el reloj con Strava?"),
    ("postventa", "relojes", 'L', "Mi reloj mide mal la distancia. ¿Qué marcas tienen mejor GPS?"),
];

const SIN_PAR_EN: &[(&str, &str, char, &str)] = &[
    ("descubrimiento", "zapatillas", 'L', "What are the best running shoes I can buy in Argentina?"),
    ("descubrimiento", "relojes", 'L', "Which GPS running watch would you recommend?"),
    ("postventa", "zapatillas", 'C', "How many kilometers do running shoes last?"),
];

/// (product, pair kind, brand a, product a, brand b, product b).
const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("zapatillas", "entre marcas", "nike", "Nike Pegasus 41", "adidas", "Adidas Adizero SL"),
    ("zapatillas", "entre marcas", "asics", "Asics Novablast 5", "new-balance", "New Balance FuelCell Rebel v4"),
    ("zapatillas", "entre marcas", "hoka", "Hoka Clifton 9", "brooks", "Brooks Ghost 16"),
    ("zapatillas", "entre marcas", "saucony", "Saucony Ride 17", "mizuno", "Mizuno Wave Rider 28"),
    ("zapatillas", "entre marcas", "puma", "Puma Velocity Nitro 3", "asics", "Asics Gel-Nimbus 26"),
    ("zapatillas", "misma marca", "nike", "Nike Pegasus 41", "nike", "Nike Vomero 17"),
    ("zapatillas", "misma marca", "asics", "Asics Gel-Kayano 31", "asics", "Asics Gel-Nimbus 26"),
    ("zapatillas", "misma marca", "adidas", "Adidas Adizero SL", "adidas", "Adidas Adizero Boston 12"),
    ("relojes", "entre marcas", "garmin", "Garmin Forerunner 265", "coros", "COROS Pace 3"),
    ("relojes", "entre marcas", "apple", "Apple Watch Series 10", "garmin", "Garmin Venu 3"),
    ("relojes", "entre marcas", "polar", "Polar Pacer Pro", "garmin", "Garmin Forerunner 165"),
    ("relojes", "entre marcas", "samsung", "Samsung Galaxy Watch 7", "amazfit", "Amazfit Balance"),
    ("relojes", "misma marca", "garmin", "Garmin Forerunner 265", "garmin", "Garmin Forerunner 965"),
    ("relojes", "misma marca", "apple", "Apple Watch SE", "apple", "Apple Watch Series 10"),
];

const COMPARAR: &[&str] =
    &["¿Qué conviene más, {a_o_b}?", "{a} vs {b}: ¿cuál me recomiendan?", "¿Qué diferencia hay entre {a} y {b}?"];

fn preguntas() -> Vec<PreguntaBase> {
    let mut out = Vec::new();
    let base = |etapa: &str, producto: &str, par: &str| {
        vec![
            ("tipo_conversacion", etapa.to_string()),
            ("producto", producto.to_string()),
            ("par_tipo", par.to_string()),
        ]
    };
    for (etapa, producto, tipo, texto) in SIN_PAR {
        for ctx in CORREDORES {
            out.push(PreguntaBase {
                texto: format!("{ctx} {texto}"),
                idioma: "es",
                dims: base(etapa, producto, "sin par"),
                tipo: if *tipo == 'C' { TipoPregunta::Consejo } else { TipoPregunta::Lista },
            });
        }
    }
    for (etapa, producto, tipo, texto) in SIN_PAR_EN {
        for ctx in CORREDORES_EN {
            out.push(PreguntaBase {
                texto: format!("{ctx} {texto}"),
                idioma: "en",
                dims: base(etapa, producto, "sin par"),
                tipo: if *tipo == 'C' { TipoPregunta::Consejo } else { TipoPregunta::Lista },
            });
        }
    }
    for (i, (producto, par, a, la, b, lb)) in PARES.iter().enumerate() {
        for (j, plantilla) in COMPARAR.iter().enumerate() {
            let ctx = CORREDORES[(i + j) % CORREDORES.len()];
            let q = plantilla.replace("{a_o_b}", &o_entre(la, lb)).replace("{a}", la).replace("{b}", lb);
            out.push(PreguntaBase {
                texto: format!("{ctx} {q}"),
                idioma: "es",
                dims: base("comparación", producto, par),
                tipo: TipoPregunta::Comparar { a, b, la: la.to_string(), lb: lb.to_string() },
            });
        }
    }
    out.push(PreguntaBase {
        texto: "Garmin Forerunner 265 or COROS Pace 3 for marathon training?".into(),
        idioma: "en",
        dims: base("comparación", "relojes", "entre marcas"),
        tipo: TipoPregunta::Comparar {
            a: "garmin",
            b: "coros",
            la: "Garmin Forerunner 265".into(),
            lb: "COROS Pace 3".into(),
        },
    });
    for (producto, marca, texto) in [
        ("zapatillas", "hoka", "¿Valen la pena las Hoka para correr todos los días?"),
        ("relojes", "garmin", "¿Vale la pena un Garmin para empezar a correr?"),
        ("zapatillas", "topper", "¿Sirven las Topper para entrenar para un 10K?"),
    ] {
        for ctx in &CORREDORES[..4] {
            out.push(PreguntaBase {
                texto: format!("{ctx} {texto}"),
                idioma: "es",
                dims: base("decisión", producto, "sin par"),
                tipo: TipoPregunta::Marca(marca),
            });
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn zapa(
    id: &'static str,
    nombre: &'static str,
    alias: &'static [&'static str],
    excluir: &'static [&'static str],
    dominios: &'static [&'static str],
    peso: f64,
    neg: f64,
    pro: &'static [&'static str],
    pro_en: &'static [&'static str],
    contra: &'static [&'static str],
) -> Marca {
    Marca {
        id,
        nombre,
        alias,
        excluir,
        dominios,
        peso,
        foco: &["zapatillas"],
        debil: &["relojes"],
        neg,
        pro: Textos { es: pro, en: pro_en },
        contra: Textos { es: contra, en: &[] },
    }
}

#[allow(clippy::too_many_arguments)]
fn reloj(
    id: &'static str,
    nombre: &'static str,
    alias: &'static [&'static str],
    excluir: &'static [&'static str],
    dominios: &'static [&'static str],
    peso: f64,
    neg: f64,
    pro: &'static [&'static str],
    pro_en: &'static [&'static str],
    contra: &'static [&'static str],
) -> Marca {
    Marca {
        id,
        nombre,
        alias,
        excluir,
        dominios,
        peso,
        foco: &["relojes"],
        debil: &["zapatillas"],
        neg,
        pro: Textos { es: pro, en: pro_en },
        contra: Textos { es: contra, en: &[] },
    }
}

#[rustfmt::skip]
fn marcas() -> Vec<Marca> {
    vec![
        zapa(
            "nike", "Nike", &["Nike Running", "~Pegasus", "~Vomero"], &[], &["nike.com.ar"], 1.0, 0.12,
            &[
                "tiene modelos muy versátiles para entrenar todos los días, como la Pegasus",
                "descubrimiento|tiene la línea más amplia y se consigue en cualquier shopping",
                "decisión|suele tener buenas promociones en su tienda online",
                "postventa|tiene garantía oficial por defectos de fabricación",
            ],
            &["has very versatile daily trainers like the Pegasus", "is easy to find anywhere"],
            &["sus precios en Argentina son altos", "algunas versiones recientes son menos durables"],
        ),
        zapa(
            "adidas", "Adidas", &["Adidas Running", "~Adizero"], &[], &["adidas.com.ar"], 0.85, 0.12,
            &[
                "tiene la línea Adizero, muy liviana para ritmos rápidos",
                "tiene espuma Boost, cómoda para rodajes largos",
                "decisión|tiene descuentos frecuentes en su tienda oficial",
            ],
            &["has the lightweight Adizero line for faster paces"],
            &["algunos modelos tienen una horma angosta"],
        ),
        zapa(
            "asics", "Asics", &["~Gel-Kayano", "~Gel-Nimbus", "~Novablast"], &[], &["asics.com.ar"], 0.8, 0.1,
            &[
                "es una referencia para corredores con pisada pronadora gracias a la Gel-Kayano",
                "tiene modelos muy estables y durables",
                "descubrimiento|tiene la Novablast, divertida y con mucho rebote",
            ],
            &["is a go-to brand for overpronators thanks to the Gel-Kayano", "makes very stable, durable shoes"],
            &["sus modelos tope de gama son caros"],
        ),
        zapa(
            "new-balance", "New Balance", &[], &[], &["newbalance.com.ar"], 0.5, 0.12,
            &["tiene hormas anchas, ideales para pies grandes", "tiene la línea FuelCell para entrenamientos rápidos"],
            &["offers wide fits for broader feet"],
            &["tiene menos variedad de modelos de running en el país"],
        ),
        zapa(
            "puma", "Puma", &[], &[], &["puma.com"], 0.4, 0.15,
            &["tiene la espuma Nitro con muy buena relación precio-calidad", "decisión|suele ser más accesible que otras marcas grandes"],
            &["has good-value Nitro foam shoes"],
            &["su suela se gasta rápido en asfalto"],
        ),
        zapa(
            "saucony", "Saucony", &["~Endorphin"], &[], &["saucony.com"], 0.35, 0.1,
            &["tiene la Ride y la Endorphin, muy valoradas por corredores", "ofrece buena amortiguación sin mucho peso"],
            &["makes the well-regarded Ride and Endorphin"],
            &["se consigue poco en Argentina y suele ser importada"],
        ),
        zapa(
            "brooks", "Brooks", &[], &[], &["brooksrunning.com"], 0.35, 0.1,
            &["tiene la Ghost, una de las zapatillas más cómodas para empezar", "es una marca especializada solo en running"],
            &["makes the Ghost, one of the most comfortable shoes for beginners"],
            &["casi no tiene distribución oficial en el país"],
        ),
        zapa(
            "hoka", "Hoka", &["Hoka One One", "~Clifton"], &[], &["hoka.com"], 0.55, 0.15,
            &["tiene máxima amortiguación, ideal para rodajes largos", "es muy recomendada para quienes vuelven de una lesión"],
            &["offers maximal cushioning for long runs"],
            &["es cara y se consigue en pocas tiendas"],
        ),
        zapa(
            "mizuno", "Mizuno", &["~Wave Rider"], &[], &["mizuno.com"], 0.35, 0.1,
            &["tiene la Wave Rider, un clásico muy durable", "ofrece una pisada firme y estable"],
            &["makes the durable Wave Rider"],
            &["tiene una sensación más firme que a algunos no les gusta"],
        ),
        zapa(
            "topper", "Topper", &[], &[], &["topper.com.ar"], 0.3, 0.2,
            &["es una marca argentina con precios accesibles", "sirve para empezar a correr sin gastar mucho"],
            &["is an affordable Argentine brand"],
            &["no tiene la tecnología de amortiguación de las marcas especializadas"],
        ),
        reloj(
            "garmin", "Garmin", &["~Forerunner"], &[], &["garmin.com"], 1.0, 0.1,
            &[
                "tiene el GPS más preciso y métricas de entrenamiento muy completas",
                "tiene modelos como el Forerunner 265 con pantalla AMOLED",
                "tiene baterías que duran más de una semana con uso normal",
                "postventa|se sincroniza fácil con Strava y otras apps",
            ],
            &["has the most accurate GPS and complete training metrics", "has long battery life"],
            &["es caro en Argentina por los impuestos de importación"],
        ),
        reloj(
            "coros", "COROS", &[], &[], &["coros.com"], 0.5, 0.12,
            &["tiene una batería excelente a un precio más bajo que la competencia", "tiene un GPS muy preciso en el Pace 3"],
            &["offers excellent battery life at a lower price"],
            &["su app es menos completa que la de otras marcas"],
        ),
        reloj(
            "polar", "Polar", &["~Pacer Pro"], &["forro polar", "oso polar", "buzo polar", "ola polar", "frente polar"], &["polar.com"], 0.4, 0.12,
            &["tiene una de las mejores mediciones de frecuencia cardíaca", "tiene planes de entrenamiento integrados"],
            &["has some of the best heart-rate tracking"],
            &["tiene menos presencia en tiendas argentinas"],
        ),
        reloj(
            "apple", "Apple", &["Apple Watch"], &[], &["apple.com"], 0.75, 0.12,
            &["tiene la mejor integración con el iPhone", "sirve para correr y también para el día a día"],
            &["integrates best with the iPhone"],
            &["su batería dura poco para entrenamientos largos", "es de los más caros"],
        ),
        reloj(
            "samsung", "Samsung", &["Galaxy Watch"], &[], &["samsung.com"], 0.45, 0.15,
            &["se integra muy bien con celulares Android", "tiene buena pantalla y funciones de salud"],
            &["works best with Android phones"],
            &["sus métricas de running son más básicas"],
        ),
        reloj(
            "amazfit", "Amazfit", &[], &[], &["amazfit.com"], 0.4, 0.15,
            &["ofrece mucho por poca plata", "tiene una batería que dura varios días"],
            &["offers a lot for little money"],
            &["su GPS es menos preciso en la ciudad"],
        ),
    ]
}

pub(crate) fn industria() -> Industria {
    Industria {
        slug: "journey-gemelos-running-2026",
        nombre: "Journey de compra del runner: zapatillas y relojes gemelos 2026",
        nombre_en: "The runner's purchase journey: twin shoes and watches 2026",
        descripcion: "Cómo acompañan los asistentes de IA el recorrido de compra de un corredor argentino, del descubrimiento a la postventa, y qué recomiendan cuando se comparan productos gemelos: zapatillas y relojes GPS de marcas distintas o de la misma marca.",
        descripcion_en: "How AI assistants guide an Argentine runner's purchase journey, from discovery to after-sales, and what they recommend when twin products are compared: running shoes and GPS watches across brands or within one brand.",
        industria: "Deportes",
        subindustria: "Running: calzado y relojes",
        pais: &["Argentina"],
        idiomas: &["es", "en"],
        tags: &["running", "zapatillas", "relojes GPS", "journey de compra", "productos gemelos", "comparaciones"],
        inicio: (2, 23),
        dias: 9,
        publicado: "2026-03-24",
        cambio_version: false,
        dimensiones: vec![
            dimension(
                "tipo_conversacion",
                "Etapa del journey",
                "Journey stage",
                &["descubrimiento", "comparación", "decisión", "postventa"],
            ),
            dimension("producto", "Producto", "Product", &["zapatillas", "relojes"]),
            dimension("par_tipo", "Tipo de par", "Pair type", &["entre marcas", "misma marca", "sin par"]),
        ],
        n_preguntas: 144,
        preguntas: preguntas(),
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "asics", 1.8),
            ("gemini-2.5-pro", "coros", 1.5),
            ("claude-sonnet-4-5", "hoka", 1.6),
            ("claude-haiku-4-5", "topper", 0.0),
        ],
        sin_marca: 0.18,
        debil_factor: 0.0,
        salud: false,
        consejos: Textos {
            es: &[
                "zapatillas|Probate las zapatillas a la tarde, cuando el pie está más hinchado.",
                "zapatillas|Dejá un dedo de espacio entre el dedo gordo y la puntera.",
                "zapatillas|Más que la marca, importa que la horma se adapte a tu pie.",
                "zapatillas|Si podés, hacé un análisis de pisada en una tienda especializada.",
                "Comprá en tiendas oficiales o con garantía: hay muchas copias en venta.",
                "Los precios cambian mucho entre tiendas: compará antes de comprar.",
                "zapatillas|Alterná dos pares si corrés todos los días: duran más.",
                "zapatillas|Las zapatillas de running suelen durar entre 600 y 800 kilómetros.",
                "zapatillas|Lavalas a mano con agua fría y dejalas secar a la sombra, nunca en el lavarropas.",
                "relojes|Para correr, lo clave es un GPS preciso y buena batería; lo demás es accesorio.",
                "relojes|Revisá que la app del reloj se conecte con Strava o la plataforma que uses.",
                "relojes|Un sensor de pecho mide la frecuencia cardíaca mejor que el de muñeca.",
                "comparación|Si las dos te quedan bien, elegí la que se sienta mejor en los primeros minutos de trote.",
                "decisión|Esperar a los eventos de descuentos puede ahorrarte bastante.",
            ],
            en: &[
                "zapatillas|Try shoes on in the afternoon, when your feet are slightly swollen.",
                "zapatillas|Fit matters more than brand.",
                "zapatillas|Running shoes usually last 600 to 800 kilometers.",
                "relojes|For running, what matters most in a watch is accurate GPS and battery life.",
                "relojes|Check that the watch app syncs with Strava or whatever platform you use.",
                "relojes|A chest strap measures heart rate more accurately than a wrist sensor.",
                "Prices in Argentina vary a lot between stores, so compare before buying.",
            ],
        },
        perfiles: Textos {
            es: &[
                "nike,adidas|querés una zapatilla versátil para todos los días",
                "asics,mizuno|tenés pisada pronadora y buscás estabilidad",
                "hoka,brooks|buscás máxima amortiguación",
                "adidas,saucony,puma|querés ritmos más rápidos",
                "topper,puma|querés gastar poco",
                "new-balance|tenés el pie ancho",
                "garmin,coros|entrenás en serio y querés métricas completas",
                "apple|usás iPhone",
                "samsung|usás Android",
                "amazfit,coros|buscás buena batería por poca plata",
                "polar|priorizás la frecuencia cardíaca",
            ],
            en: &[
                "garmin,coros|you train seriously and want full metrics",
                "hoka,brooks|you want maximum cushioning",
                "nike,adidas|you want a versatile daily trainer",
            ],
        },
        medios: vec![
            Medio { host: "www.runnersworld.com", nombre: "Runner's World", ruta: "/gear/", idioma: "*" },
            Medio { host: "www.xataka.com", nombre: "Xataka", ruta: "/wearables/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/deportes/running/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/deportes/running/", idioma: "es" },
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/tendencias/{fecha}/", idioma: "es" },
            Medio { host: "www.dcrainmaker.com", nombre: "DC Rainmaker", ruta: "/2025/", idioma: "en" },
            Medio { host: "runrepeat.com", nombre: "RunRepeat", ruta: "/", idioma: "*" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/RunningArgentina/comments/", idioma: "es" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/running/comments/", idioma: "en" },
        ],
        titulos: Textos {
            es: &[
                "zapatillas|Las mejores zapatillas de running de 2026",
                "zapatillas|Cómo elegir zapatillas según tu pisada",
                "relojes|Relojes GPS para correr: comparativa completa",
                "zapatillas|Cuándo cambiar las zapatillas de running",
                "zapatillas|Zapatillas para maratón: qué tener en cuenta",
                "relojes|Los mejores relojes para correr por menos plata",
            ],
            en: &[
                "zapatillas|Best running shoes of 2026",
                "relojes|Best GPS running watches",
                "zapatillas|How long do running shoes last?",
                "relojes|In-depth review: the latest running watch",
            ],
        },
        paginas: &[
            ("/running", "Running | {marca}", "Running | {marca}"),
            ("/ar/es/productos/running", "Productos de running | {marca}", "Running products | {marca}"),
            ("/soporte/garantia", "Garantía | {marca}", "Warranty | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_TODAS),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorDimension(Metric::Protagonismo, "tipo_conversacion"),
            Tabla::PorDimension(Metric::Mencion, "par_tipo"),
            Tabla::ModeloDimension(Metric::Protagonismo, "tipo_conversacion", "nike"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("tipo_conversacion")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(12),
            Tabla::MarcasFiltro(
                &[Metric::Mencion, Metric::Orden, Metric::Protagonismo, Metric::Top1],
                "producto",
                "relojes",
            ),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas siguen las etapas del journey de compra (descubrimiento, comparación, decisión y postventa) para zapatillas y relojes; en la etapa de comparación se enfrentan productos gemelos, de marcas distintas o de la misma marca (dimensión tipo de par).",
        con_hallazgos: true,
    }
}
