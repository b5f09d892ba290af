//! Car insurance in Argentina.
//!
//! Regional insurers (La Segunda, Sancor, Federación Patronal, San Cristóbal, Mercantil
//! Andina) compete with international ones and with an online comparator. The study crosses
//! coverage and driver profile with the telephone area code of the asker (AMBA, Córdoba,
//! Rosario, Mendoza, Tucumán), because the recommended insurer changes with the region.

use generator::model::Metric;

use super::comun::{METRICAS_BASE, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, PreguntaBase, Textos, TipoPregunta, marca_es, o_entre};

/// (area code, context sentences).
const AREAS: &[(&str, &[&str])] = &[
    ("011", &["Vivo en CABA.", "Vivo en zona norte del conurbano.", "Vivo en zona oeste del Gran Buenos Aires."]),
    ("0351", &["Vivo en Córdoba capital.", "Vivo en Nueva Córdoba."]),
    ("0341", &["Vivo en Rosario.", "Vivo en Funes, cerca de Rosario."]),
    ("0261", &["Vivo en Mendoza.", "Vivo en Godoy Cruz, Mendoza."]),
    ("0381", &["Vivo en San Miguel de Tucumán.", "Vivo en Yerba Buena, Tucumán."]),
];

/// (coverage, profile, kind, text).
const PLANTILLAS: &[(&str, &str, char, &str)] = &[
    (
        "responsabilidad civil",
        "primer auto",
        'L',
        "Me compré mi primer auto, un Gol usado. ¿Qué seguro contra terceros me conviene?",
    ),
    (
        "terceros completo",
        "primer auto",
        'L',
        "Tengo mi primer auto, un Onix 2019. ¿Qué aseguradora recomiendan para un terceros completo?",
    ),
    ("todo riesgo", "primer auto", 'L', "Me compré un 0 km. ¿Dónde conviene sacar un seguro todo riesgo?"),
    ("terceros completo", "primer auto", 'C', "Es mi primer auto. ¿Qué cobertura necesito como mínimo?"),
    (
        "todo riesgo",
        "primer auto",
        'L',
        "Compré mi primer auto financiado. ¿Qué aseguradora me conviene para un todo riesgo con franquicia?",
    ),
    ("terceros completo", "familia", 'L', "Tenemos un auto familiar, una Spin 2020. ¿Qué seguro recomiendan?"),
    (
        "todo riesgo",
        "familia",
        'L',
        "¿Qué aseguradora tiene la mejor atención en caso de siniestro para un auto familiar?",
    ),
    (
        "responsabilidad civil",
        "familia",
        'C',
        "Tenemos un segundo auto viejo en la familia. ¿Alcanza con responsabilidad civil?",
    ),
    (
        "terceros completo",
        "familia",
        'L',
        "¿Qué compañía tiene buen servicio de grúa y asistencia para viajar en familia?",
    ),
    ("responsabilidad civil", "familia", 'L', "¿Qué aseguradora tiene el seguro más barato y confiable?"),
    ("terceros completo", "familia", 'C', "¿Cómo comparo cotizaciones de seguros de auto sin que me vendan de más?"),
    ("todo riesgo", "familia", 'L', "¿Qué aseguradoras tienen buena reputación para pagar los siniestros?"),
    (
        "terceros completo",
        "conductor joven",
        'L',
        "Tengo 19 años y recién saqué el registro. ¿Qué aseguradora no cobra tan caro a conductores jóvenes?",
    ),
    ("responsabilidad civil", "conductor joven", 'L', "Tengo 21 años y un auto usado. ¿Cuál es el seguro más barato?"),
    ("todo riesgo", "conductor joven", 'C', "Tengo 20 años. ¿Vale la pena pagar un todo riesgo?"),
    (
        "todo riesgo",
        "conductor joven",
        'L',
        "Soy conductor joven y me compré un auto nuevo. ¿Qué compañía recomiendan?",
    ),
    (
        "terceros completo",
        "uso profesional",
        'L',
        "Uso el auto para trabajar con aplicaciones. ¿Qué aseguradora cubre ese uso?",
    ),
    ("todo riesgo", "uso profesional", 'L', "Tengo una flota chica de utilitarios. ¿Qué compañía recomiendan?"),
    (
        "responsabilidad civil",
        "uso profesional",
        'C',
        "¿Qué pasa si choco mientras trabajo con el auto y el seguro es particular?",
    ),
    (
        "terceros completo",
        "uso profesional",
        'L',
        "Soy viajante y hago muchos kilómetros por mes. ¿Qué seguro me recomiendan?",
    ),
];

/// (coverage, profile, brand a, label a, brand b, label b).
const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("terceros completo", "familia", "la-segunda", "La Segunda", "sancor", "Sancor Seguros"),
    ("todo riesgo", "primer auto", "federacion", "Federación Patronal", "mapfre", "Mapfre"),
    ("responsabilidad civil", "conductor joven", "rivadavia", "Seguros Rivadavia", "rus", "Río Uruguay Seguros"),
    ("todo riesgo", "familia", "zurich", "Zurich", "allianz", "Allianz"),
];

fn preguntas() -> Vec<PreguntaBase> {
    let mut out = Vec::new();
    for (cobertura, perfil, tipo, texto) in PLANTILLAS {
        for (area, frases) in AREAS {
            for ctx in *frases {
                out.push(PreguntaBase {
                    texto: format!("{ctx} {texto}"),
                    idioma: "es",
                    dims: vec![
                        ("producto", cobertura.to_string()),
                        ("segmento", perfil.to_string()),
                        ("area_codigo", area.to_string()),
                    ],
                    tipo: if *tipo == 'C' { TipoPregunta::Consejo } else { TipoPregunta::Lista },
                });
            }
        }
    }
    for (cobertura, perfil, a, la, b, lb) in PARES {
        for (area, frases) in AREAS {
            let ctx = frases[0];
            out.push(PreguntaBase {
                texto: format!("{ctx} Para un {cobertura}, ¿qué conviene más, {}?", o_entre(la, lb)),
                idioma: "es",
                dims: vec![
                    ("producto", cobertura.to_string()),
                    ("segmento", perfil.to_string()),
                    ("area_codigo", area.to_string()),
                ],
                tipo: TipoPregunta::Comparar { a, b, la: la.to_string(), lb: lb.to_string() },
            });
        }
    }
    out
}

#[rustfmt::skip]
fn marcas() -> Vec<Marca> {
    let m = marca_es;
    vec![
        m(
            "sancor", "Sancor Seguros", &["Sancor"], &[], &["sancorseguros.com.ar"], 1.0,
            &["0341", "0351"], 0.15,
            &[
                "tiene una red de productores asesores muy amplia en todo el país",
                "suele tener cuotas competitivas en terceros completo",
                "todo riesgo|ofrece todo riesgo con franquicias a elección",
                "0341,0351|es muy fuerte en Santa Fe y Córdoba, con oficinas en casi todas las ciudades",
                "familia|tiene buena asistencia en ruta y grúa para viajes largos",
            ],
            &["algunos usuarios reportan demoras en la liquidación de siniestros", "la cuota sube bastante en cada renovación"],
        ),
        m(
            "la-segunda", "La Segunda", &["La Segunda Seguros"],
            &["la segunda opción", "la segunda alternativa", "la segunda cuota", "la segunda vez", "la segunda mano"],
            &["lasegunda.com.ar"], 0.85,
            &["0341", "familia"], 0.12,
            &[
                "es una cooperativa con mucha trayectoria y buena reputación en siniestros",
                "0341|tiene su casa central en Rosario y atención muy cercana en la región",
                "familia|ofrece descuentos por asegurar más de un vehículo",
                "terceros completo|tiene un terceros completo con granizo incluido",
            ],
            &["su app es menos moderna que la de otras compañías"],
        ),
        m(
            "federacion", "Federación Patronal", &["Federación Patronal Seguros"], &[], &["fedpat.com.ar"], 0.8,
            &["011", "responsabilidad civil", "conductor joven"], 0.15,
            &[
                "suele tener de las cuotas más bajas del mercado",
                "responsabilidad civil|es una opción económica para responsabilidad civil",
                "conductor joven|cotiza razonable para conductores jóvenes",
                "011|tiene muchos productores en la provincia de Buenos Aires",
            ],
            &["la atención por siniestros puede ser lenta", "tiene menos beneficios adicionales"],
        ),
        m(
            "mapfre", "Mapfre", &["Mapfre Argentina"], &[], &["mapfre.com.ar"], 0.7,
            &["todo riesgo", "011"], 0.18,
            &[
                "es una aseguradora internacional con buena app para gestionar siniestros",
                "todo riesgo|tiene coberturas todo riesgo con auto sustituto",
                "permite cotizar y contratar online en pocos minutos",
            ],
            &["algunos clientes se quejan de los aumentos de cuota", "la atención telefónica puede demorar"],
        ),
        m(
            "zurich", "Zurich", &["Zurich Argentina"], &[], &["zurich.com.ar"], 0.55,
            &["todo riesgo", "uso profesional"], 0.15,
            &[
                "es una compañía internacional con solidez financiera",
                "todo riesgo|tiene buenas coberturas para autos nuevos",
                "uso profesional|ofrece pólizas para flotas y empresas",
            ],
            &["suele ser más cara que las aseguradoras regionales"],
        ),
        m(
            "allianz", "Allianz", &["Allianz Argentina"], &[], &["allianz.com.ar"], 0.5,
            &["todo riesgo"], 0.15,
            &["es una aseguradora global con buena reputación", "todo riesgo|tiene coberturas completas para autos de alta gama"],
            &["tiene menos presencia en el interior"],
        ),
        m(
            "san-cristobal", "San Cristóbal Seguros", &["San Cristóbal"], &["barrio de San Cristóbal", "barrio San Cristóbal"],
            &["sancristobal.com.ar"], 0.5,
            &["0341", "familia"], 0.12,
            &["es una mutual con mucha presencia en Rosario y el litoral", "tiene buena atención a través de sus productores", "familia|ofrece asistencia mecánica las 24 horas"],
            &["su cotización online es poco práctica"],
        ),
        m(
            "rivadavia", "Seguros Rivadavia", &["Rivadavia Seguros"], &[], &["segurosrivadavia.com"], 0.45,
            &["011", "responsabilidad civil"], 0.15,
            &["es una mutual con cuotas accesibles", "responsabilidad civil|tiene responsabilidad civil a muy buen precio"],
            &["tiene menos servicios adicionales que las grandes"],
        ),
        m(
            "mercantil", "Mercantil Andina", &["La Mercantil Andina"], &[], &["mercantilandina.com.ar"], 0.35,
            &["0261"], 0.12,
            &["0261|nació en Mendoza y es muy fuerte en Cuyo", "tiene buena relación entre precio y cobertura"],
            &["tiene menos oficinas fuera de su región"],
        ),
        m(
            "rus", "Río Uruguay Seguros", &["RUS", "Río Uruguay"], &[], &["rus.com.ar"], 0.35,
            &["conductor joven", "0381"], 0.2,
            &["suele tener cuotas bajas", "conductor joven|es una de las más accesibles para conductores jóvenes"],
            &["tiene opiniones divididas sobre la atención de siniestros"],
        ),
        m(
            "provincia", "Provincia Seguros", &[], &[], &["provinciaseguros.com.ar"], 0.3,
            &["011"], 0.18,
            &["011|tiene descuentos para clientes del banco público bonaerense", "es una aseguradora estatal con respaldo"],
            &["los trámites pueden ser burocráticos"],
        ),
        m(
            "galicia", "Galicia Seguros", &[], &[], &["galiciaseguros.com.ar"], 0.3,
            &["primer auto"], 0.12,
            &["permite contratar el seguro desde la app del banco", "primer auto|tiene descuentos si ya sos cliente del banco"],
            &["conviene comparar porque no siempre es la cuota más baja"],
        ),
        m(
            "caja", "Caja Seguros", &[], &[], &["cajaseguros.com.ar"], 0.3,
            &["familia"], 0.15,
            &["tiene una trayectoria larga y buena cobertura de asistencia", "familia|ofrece paquetes que combinan auto y hogar"],
            &["sus cuotas no son de las más bajas"],
        ),
        m(
            "123seguro", "123Seguro", &["123 Seguro"], &[], &["123seguro.com"], 0.45,
            &["primer auto", "conductor joven"], 0.1,
            &["permite comparar cotizaciones de varias aseguradoras en un solo lugar", "primer auto|ayuda a entender las coberturas si es tu primer seguro"],
            &["no es una aseguradora: la póliza la emite la compañía que elijas"],
        ),
    ]
}

pub(crate) fn industria() -> Industria {
    Industria {
        slug: "seguros-automotores-2026",
        nombre: "Seguros de auto en Argentina 2026",
        nombre_en: "Car insurance in Argentina 2026",
        descripcion: "Qué aseguradoras recomiendan los asistentes de IA para responsabilidad civil, terceros completo y todo riesgo, según el perfil del conductor y la región del país (por código de área: AMBA, Córdoba, Rosario, Mendoza y Tucumán).",
        descripcion_en: "Which insurers AI assistants recommend for liability, third-party-plus and comprehensive car cover, by driver profile and region of the country (by telephone area code: Buenos Aires, Córdoba, Rosario, Mendoza and Tucumán).",
        industria: "Seguros",
        subindustria: "Seguros automotores",
        pais: &["Argentina"],
        idiomas: &["es"],
        tags: &["seguros", "seguro de auto", "aseguradoras", "regiones", "conductores jóvenes"],
        inicio: (3, 16),
        dias: 18,
        publicado: "2026-04-20",
        cambio_version: true,
        dimensiones: vec![
            dimension(
                "producto",
                "Cobertura",
                "Coverage",
                &["responsabilidad civil", "terceros completo", "todo riesgo"],
            ),
            dimension(
                "segmento",
                "Perfil",
                "Driver profile",
                &["primer auto", "familia", "conductor joven", "uso profesional"],
            ),
            dimension("area_codigo", "Código de área", "Area code", &["011", "0351", "0341", "0261", "0381"]),
        ],
        n_preguntas: 200,
        preguntas: preguntas(),
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "123seguro", 2.2),
            ("gemini-2.5-flash", "123seguro", 1.5),
            ("claude-sonnet-4-5", "la-segunda", 1.5),
            ("gpt-5-mini", "caja", 0.0),
        ],
        sin_marca: 0.1,
        debil_factor: 0.2,
        salud: false,
        consejos: Textos {
            es: &[
                "Compará la misma cobertura en al menos tres compañías.",
                "Revisá la franquicia: una cuota baja puede esconder una franquicia alta.",
                "Verificá que la aseguradora esté autorizada por la Superintendencia de Seguros de la Nación (SSN).",
                "Preguntá por la reputación en el pago de siniestros, no solo por el precio.",
                "Declarar mal el uso del auto puede dejarte sin cobertura.",
                "Revisá si incluye grúa, auxilio mecánico y cobertura en países limítrofes.",
                "Un buen productor asesor te ayuda mucho cuando hay un siniestro.",
                "responsabilidad civil|La responsabilidad civil es obligatoria, pero no cubre los daños de tu propio auto.",
                "terceros completo|El terceros completo suele incluir granizo con tope: revisá el límite.",
                "todo riesgo|En todo riesgo, compará franquicias fijas y porcentuales.",
                "todo riesgo|Si el auto está prendado, el banco puede exigir una cobertura mínima.",
                "conductor joven|Sumar a un conductor con experiencia como titular puede bajar la cuota, pero tiene que ser real.",
                "uso profesional|Si trabajás con aplicaciones, necesitás declararlo: muchas pólizas particulares lo excluyen.",
                "primer auto|Pedí descuentos por alarma, cochera o bajo kilometraje.",
                "0351,0341,0261|En zonas con granizo frecuente, conviene una cobertura que lo incluya sin tope bajo.",
                "011|En el AMBA el riesgo de robo pesa mucho en la cuota: un rastreador puede bajarla.",
            ],
            en: &[],
        },
        perfiles: Textos {
            es: &[
                "sancor,la-segunda,san-cristobal|querés una aseguradora con productores cerca",
                "federacion,rivadavia,rus|buscás precio sin resignar respaldo",
                "zurich,allianz,mapfre|preferís una compañía internacional con buena app",
                "123seguro|querés comparar cotizaciones online",
                "mercantil|vivís en Cuyo",
                "galicia,provincia|ya sos cliente del banco",
                "caja|querés asegurar el auto y la casa juntos",
            ],
            en: &[],
        },
        medios: vec![
            Medio {
                host: "www.ssn.gob.ar",
                nombre: "Superintendencia de Seguros de la Nación",
                ruta: "/storage/",
                idioma: "es",
            },
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/economia/{fecha}/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/economia/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/autos/", idioma: "es" },
            Medio { host: "www.iprofesional.com", nombre: "iProfesional", ruta: "/autos/", idioma: "es" },
            Medio { host: "www.lavoz.com.ar", nombre: "La Voz", ruta: "/servicios/", idioma: "es" },
            Medio { host: "www.lacapital.com.ar", nombre: "La Capital", ruta: "/economia/", idioma: "es" },
            Medio { host: "www.losandes.com.ar", nombre: "Los Andes", ruta: "/economia/", idioma: "es" },
            Medio { host: "www.lagaceta.com.ar", nombre: "La Gaceta", ruta: "/nota/", idioma: "es" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/argentina/comments/", idioma: "es" },
        ],
        titulos: Textos {
            es: &[
                "Seguros de auto: cuánto cuesta asegurar un auto en 2026",
                "Terceros completo o todo riesgo: qué conviene",
                "Ranking de aseguradoras por reclamos de siniestros",
                "Cómo ahorrar en el seguro del auto",
                "conductor joven|Seguro para conductores jóvenes: por qué es tan caro",
                "0351,0341,0261,terceros completo|Granizo: qué cubre cada póliza",
                "uso profesional|Trabajar con aplicaciones y el seguro del auto: lo que hay que saber",
            ],
            en: &[],
        },
        paginas: &[
            ("/seguros/autos", "Seguro de autos | {marca}", "Car insurance | {marca}"),
            ("/cotizar", "Cotizá tu seguro | {marca}", "Get a quote | {marca}"),
            ("/siniestros", "Denunciá un siniestro | {marca}", "Claims | {marca}"),
            ("/productores", "Encontrá un productor | {marca}", "Find a broker | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_BASE),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorDimension(Metric::Mencion, "area_codigo"),
            Tabla::PorDimension(Metric::Protagonismo, "producto"),
            Tabla::ModeloDimension(Metric::Mencion, "area_codigo", "sancor"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("area_codigo")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(12),
            Tabla::MarcasFiltro(&[Metric::Mencion, Metric::Top1, Metric::Sov], "segmento", "conductor joven"),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan tres coberturas, cuatro perfiles de conductor y cinco códigos de área telefónicos (AMBA, Córdoba, Rosario, Mendoza y Tucumán), porque la aseguradora recomendada cambia con la región.",
        con_hallazgos: true,
    }
}
