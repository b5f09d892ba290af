//! Tourism in the Sierras de Córdoba.
//!
//! A destination study: travellers ask where to stay, how to get there, what to do and where
//! to eat in the valleys of Punilla, Calamuchita and Traslasierra or from Córdoba city. The
//! entities are the ones a trip actually runs through: airlines, booking platforms, a bus
//! ticket site, hotels, the automobile club and the provincial tourism agency.

use generator::model::Metric;

use super::comun::{METRICAS_BASE, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, comparar, cruzar};

const VALLES: &[(&str, &[&str])] = &[
    ("Punilla", &["Vamos a Villa Carlos Paz en enero.", "Queremos ir a La Cumbre un fin de semana largo."]),
    (
        "Calamuchita",
        &[
            "Vamos a Villa General Belgrano para la Fiesta de la Cerveza.",
            "Queremos ir a Santa Rosa de Calamuchita con chicos.",
        ],
    ),
    ("Traslasierra", &["Vamos a Mina Clavero en verano.", "Queremos conocer Nono y Mina Clavero."]),
    (
        "Córdoba capital",
        &[
            "Llegamos a Córdoba capital y queremos recorrer las sierras.",
            "Vamos a Córdoba capital por un congreso y nos quedamos unos días.",
        ],
    ),
];

const VALLES_EN: &[(&str, &[&str])] = &[
    ("Punilla", &["We're planning a trip to Villa Carlos Paz."]),
    ("Calamuchita", &["We want to visit Villa General Belgrano."]),
    ("Traslasierra", &["We're going to Mina Clavero in the summer."]),
    ("Córdoba capital", &["We'll be based in Córdoba city for a week."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("alojamiento", 'L', "¿Dónde conviene alojarse?"),
    ("alojamiento", 'L', "¿Qué hoteles con pileta recomiendan?"),
    ("alojamiento", 'C', "¿Conviene reservar cabaña o hotel?"),
    ("alojamiento", 'L', "¿Dónde busco alojamiento con buenas reseñas?"),
    ("traslados", 'L', "¿Cómo conviene llegar desde Buenos Aires?"),
    ("traslados", 'L', "¿Qué aerolínea tiene vuelos baratos a Córdoba?"),
    ("traslados", 'C', "¿Conviene alquilar auto para moverse por las sierras?"),
    ("traslados", 'L', "¿Dónde saco pasajes de micro?"),
    ("actividades", 'C', "¿Qué se puede hacer con chicos?"),
    ("actividades", 'L', "¿Qué excursiones recomiendan y dónde se reservan?"),
    ("actividades", 'C', "¿Qué trekking se puede hacer sin guía?"),
    ("gastronomía", 'C', "¿Dónde se come rico?"),
    ("gastronomía", 'C', "¿Qué comidas típicas hay que probar?"),
    ("gastronomía", 'L', "¿Cómo encuentro restaurantes bien puntuados?"),
];

const PLANTILLAS_EN: &[(&str, char, &str)] = &[
    ("alojamiento", 'L', "Where should we stay in the Córdoba hills?"),
    ("traslados", 'L', "What's the best way to get there from Buenos Aires?"),
    ("actividades", 'L', "What are the best tours in the Sierras de Córdoba, and where do we book them?"),
];

const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("alojamiento", "booking", "Booking", "airbnb", "Airbnb", "¿Es mejor reservar por {a_o_b}?"),
    (
        "traslados",
        "aerolineas",
        "Aerolíneas Argentinas",
        "flybondi",
        "Flybondi",
        "Para volar desde Buenos Aires, ¿conviene {a_o_b}?",
    ),
    ("traslados", "flybondi", "Flybondi", "jetsmart", "JetSMART", "¿Qué low cost conviene más, {a_o_b}?"),
];

#[rustfmt::skip]
fn marcas() -> Vec<Marca> {
    #[allow(clippy::too_many_arguments)]
    fn m(id: &'static str, nombre: &'static str, alias: &'static [&'static str], dominios: &'static [&'static str], peso: f64, foco: &'static [&'static str], neg: f64, pro: &'static [&'static str], pro_en: &'static [&'static str], contra: &'static [&'static str]) -> Marca {
        Marca {
            id,
            nombre,
            alias,
            excluir: &[],
            dominios,
            peso,
            foco,
            debil: &[],
            neg,
            pro: Textos { es: pro, en: pro_en },
            contra: Textos { es: contra, en: &[] },
        }
    }
    let mut v = vec![
        m(
            "booking", "Booking.com", &["Booking"], &["booking.com"], 1.0, &["alojamiento"], 0.12,
            &[
                "alojamiento|tiene la mayor oferta de hoteles y cabañas de la zona",
                "alojamiento|permite cancelar gratis en muchas reservas",
                "tiene reseñas verificadas de huéspedes",
            ],
            &["has the widest choice of hotels and cabins", "offers free cancellation on many bookings"],
            &["algunos alojamientos cobran más que reservando directo"],
        ),
        m(
            "airbnb", "Airbnb", &[], &["airbnb.com.ar", "airbnb.com"], 0.75, &["alojamiento"], 0.18,
            &["alojamiento|tiene muchas casas y cabañas para grupos o familias", "alojamiento|permite alquilar casas con parrilla y pileta"],
            &["has many houses and cabins for families"],
            &["las tarifas de limpieza encarecen las estadías cortas"],
        ),
        m(
            "despegar", "Despegar", &["Despegar.com"], &["despegar.com.ar"], 0.5, &["traslados", "alojamiento"], 0.18,
            &["permite armar paquetes de vuelo y hotel", "traslados|ofrece cuotas sin interés en vuelos"],
            &["lets you bundle flights and hotels"],
            &["la atención posventa tiene muchas quejas"],
        ),
        m(
            "aerolineas", "Aerolíneas Argentinas", &["Aerolíneas"], &["aerolineas.com.ar"], 0.7, &["traslados"], 0.15,
            &["traslados|tiene la mayor cantidad de vuelos diarios a Córdoba", "traslados|incluye valija en despacho en muchas tarifas"],
            &["has the most daily flights to Córdoba"],
            &["sus tarifas suelen ser más caras que las low cost"],
        ),
        m(
            "flybondi", "Flybondi", &[], &["flybondi.com"], 0.55, &["traslados"], 0.25,
            &["traslados|suele tener los pasajes más baratos desde Buenos Aires", "traslados|tiene promociones frecuentes"],
            &["often has the cheapest fares from Buenos Aires"],
            &["tiene reprogramaciones y demoras frecuentes", "cobra aparte el equipaje"],
        ),
        m(
            "jetsmart", "JetSMART", &[], &["jetsmart.com"], 0.45, &["traslados"], 0.2,
            &["traslados|es una low cost con buena puntualidad", "traslados|tiene tarifas bajas si viajás solo con mochila"],
            &["is a low-cost airline with decent punctuality"],
            &["cobra extra por casi todo, incluso elegir asiento"],
        ),
        m(
            "plataforma10", "Plataforma 10", &["Plataforma10"], &["plataforma10.com.ar"], 0.4, &["traslados"], 0.12,
            &["traslados|permite comparar y comprar pasajes de micro de varias empresas", "traslados|tiene micros directos a Carlos Paz, Villa General Belgrano y Mina Clavero"],
            &["lets you compare and buy bus tickets from several companies"],
            &["cobra un cargo por servicio en cada pasaje"],
        ),
        m(
            "tripadvisor", "Tripadvisor", &[], &["tripadvisor.com.ar", "tripadvisor.com"], 0.6, &["gastronomía", "actividades"], 0.1,
            &["tiene muchísimas reseñas de viajeros", "gastronomía|sirve para encontrar restaurantes bien puntuados en cada pueblo", "actividades|permite reservar excursiones con reseñas"],
            &["has tons of traveller reviews", "helps you find well-rated restaurants"],
            &["algunas reseñas están desactualizadas"],
        ),
        m(
            "cordoba-turismo", "Agencia Córdoba Turismo", &["Córdoba Turismo"], &["cordobaturismo.gov.ar"], 0.45, &["actividades", "gastronomía"], 0.05,
            &["es el sitio oficial de turismo de la provincia", "actividades|tiene el calendario de fiestas y eventos de cada valle", "actividades|publica circuitos y senderos habilitados"],
            &["is the official provincial tourism site"],
            &["su web no siempre está actualizada"],
        ),
        m(
            "aca", "Automóvil Club Argentino", &["ACA"], &["aca.org.ar"], 0.35, &["traslados"], 0.1,
            &["traslados|tiene mapas de rutas y estado de caminos", "tiene hoteles y campings para socios en la zona"],
            &["has road maps and route information"],
            &["sus campings y hoteles son básicos"],
        ),
        m(
            "howard-johnson", "Howard Johnson", &["Howard Johnson Córdoba"], &["hojoar.com"], 0.35, &["alojamiento", "Córdoba capital"], 0.15,
            &["alojamiento|tiene hoteles en Córdoba capital y en las sierras", "alojamiento|ofrece tarifas con desayuno incluido"],
            &["has hotels in Córdoba city and the hills"],
            &["la calidad varía mucho entre hoteles"],
        ),
        m(
            "amerian", "Amerian", &["Amerian Hoteles"], &["amerian.com"], 0.25, &["alojamiento", "Córdoba capital"], 0.12,
            &["alojamiento|tiene hoteles céntricos en Córdoba capital", "es una cadena regional con buena atención"],
            &["has central hotels in Córdoba city"],
            &["tiene pocas opciones fuera de la capital"],
        ),
        m(
            "posta-del-qenti", "Posta del Qenti", &[], &["postadelqenti.com.ar"], 0.2, &["alojamiento", "Punilla"], 0.08,
            &["alojamiento|es un hotel spa en Río Ceballos ideal para descansar", "ofrece programas de bienestar con todo incluido"],
            &["is a spa hotel in Río Ceballos"],
            &["es una opción cara"],
        ),
    ];
    // Lodging brands rarely answer transport questions, airlines rarely answer lodging ones.
    for m in &mut v {
        m.debil = match m.id {
            "booking" | "airbnb" | "howard-johnson" | "amerian" | "posta-del-qenti" => &["traslados", "gastronomía"],
            "aerolineas" | "flybondi" | "jetsmart" | "plataforma10" => &["alojamiento", "actividades", "gastronomía"],
            "despegar" => &["actividades", "gastronomía"],
            "aca" => &["gastronomía"],
            _ => &[],
        };
    }
    v
}

pub(crate) fn industria() -> Industria {
    let es = &[("idioma", "es")];
    let en = &[("idioma", "en")];
    let mut preguntas = cruzar("seccion", "alcance", PLANTILLAS, VALLES, "es", es);
    preguntas.extend(cruzar("seccion", "alcance", PLANTILLAS_EN, VALLES_EN, "en", en));
    preguntas.extend(comparar("seccion", "alcance", PARES, VALLES, "es", es));
    Industria {
        slug: "turismo-sierras-cordoba-2026",
        nombre: "Turismo en las Sierras de Córdoba 2026",
        nombre_en: "Tourism in the Sierras de Córdoba 2026",
        descripcion: "Qué plataformas, aerolíneas, hoteles y fuentes oficiales nombran los asistentes de IA cuando un viajero planifica unas vacaciones en las Sierras de Córdoba: alojamiento, traslados, actividades y gastronomía en Punilla, Calamuchita, Traslasierra y Córdoba capital.",
        descripcion_en: "Which platforms, airlines, hotels and official sources AI assistants name when a traveller plans a holiday in the Sierras de Córdoba: lodging, transport, activities and food in Punilla, Calamuchita, Traslasierra and Córdoba city.",
        industria: "Turismo y hotelería",
        subindustria: "Destinos nacionales",
        pais: &["Argentina"],
        idiomas: &["es", "en"],
        tags: &["turismo", "Córdoba", "sierras", "vacaciones", "aerolíneas", "alojamiento"],
        inicio: (1, 5),
        dias: 7,
        publicado: "2026-01-27",
        cambio_version: false,
        dimensiones: vec![
            dimension(
                "seccion",
                "Sección del viaje",
                "Trip section",
                &["alojamiento", "traslados", "actividades", "gastronomía"],
            ),
            dimension(
                "alcance",
                "Valle o zona",
                "Valley or area",
                &["Punilla", "Calamuchita", "Traslasierra", "Córdoba capital"],
            ),
            dimension("idioma", "Idioma", "Language", &["es", "en"]),
        ],
        n_preguntas: 120,
        preguntas,
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "tripadvisor", 1.8),
            ("gemini-2.5-flash", "despegar", 1.5),
            ("claude-sonnet-4-5", "cordoba-turismo", 1.7),
            ("claude-haiku-4-5", "amerian", 0.0),
        ],
        sin_marca: 0.16,
        debil_factor: 0.2,
        salud: false,
        consejos: Textos {
            es: &[
                "En enero y febrero la demanda es muy alta: reservá con anticipación.",
                "Leé las reseñas más recientes antes de reservar.",
                "Consultá el pronóstico: en verano son comunes las tormentas por la tarde.",
                "Llevá efectivo: en algunos pueblos chicos no todos aceptan tarjeta.",
                "alojamiento|Fijate si la cabaña tiene pileta y parrilla, que en verano hacen la diferencia.",
                "alojamiento|Reservar directo con el alojamiento a veces da descuentos por pago en efectivo o transferencia.",
                "traslados|Si vas en auto, revisá el estado de las rutas de montaña antes de salir.",
                "traslados|Comprá los pasajes con anticipación para los fines de semana largos.",
                "traslados|En las sierras, tener auto te da mucha más libertad para recorrer.",
                "actividades|Para los trekkings, llevá agua, protector solar y avisá a alguien tu recorrido.",
                "actividades|El Camino de las Altas Cumbres tiene miradores imperdibles.",
                "gastronomía|No te vayas sin probar el chivito, los alfajores y los salames de Colonia Caroya.",
                "gastronomía|En Villa General Belgrano la cocina centroeuropea y la cerveza artesanal son protagonistas.",
                "Calamuchita|En octubre, la Fiesta Nacional de la Cerveza llena Villa General Belgrano.",
                "Traslasierra|Traslasierra es más tranquila y tiene ríos de agua cristalina.",
            ],
            en: &[
                "Book early for January and February.",
                "Read the most recent reviews before you reserve.",
                "Afternoon storms are common in summer.",
                "Renting a car gives you much more freedom to explore the hills.",
                "Carry some cash: small towns don't always take cards.",
            ],
        },
        perfiles: Textos {
            es: &[
                "booking,airbnb|buscás alojamiento con muchas opciones",
                "airbnb|viajás en grupo y querés una casa",
                "flybondi,jetsmart|querés el pasaje más barato",
                "aerolineas|preferís más frecuencias y valija incluida",
                "plataforma10|vas en micro",
                "tripadvisor,cordoba-turismo|querés armar actividades",
                "howard-johnson,amerian|preferís un hotel de cadena",
                "posta-del-qenti|buscás descanso y spa",
                "despegar|querés un paquete con vuelo y hotel",
                "aca|vas en auto",
            ],
            en: &[
                "booking,airbnb|you want plenty of lodging options",
                "aerolineas,flybondi,jetsmart|you're flying in",
                "tripadvisor|you're planning activities",
            ],
        },
        medios: vec![
            Medio { host: "www.tripadvisor.com.ar", nombre: "Tripadvisor", ruta: "/", idioma: "es" },
            Medio { host: "www.lavoz.com.ar", nombre: "La Voz", ruta: "/turismo/", idioma: "es" },
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/turismo/{fecha}/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/viajes/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/turismo/", idioma: "es" },
            Medio {
                host: "www.argentina.gob.ar",
                nombre: "Argentina.gob.ar",
                ruta: "/interior/turismo/",
                idioma: "es",
            },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/argentina/comments/", idioma: "es" },
            Medio { host: "www.lonelyplanet.com", nombre: "Lonely Planet", ruta: "/argentina/cordoba/", idioma: "en" },
        ],
        titulos: Textos {
            es: &[
                "Sierras de Córdoba: guía completa para las vacaciones",
                "Calamuchita|Villa General Belgrano: qué hacer y dónde dormir",
                "traslados|Cómo llegar a Córdoba: vuelos, micros y auto",
                "Traslasierra|Mina Clavero y Nono: los imperdibles de Traslasierra",
                "Punilla|Carlos Paz en temporada: precios y alojamientos",
                "actividades|Los mejores trekkings de las sierras cordobesas",
                "gastronomía|Qué comer en Córdoba: platos y productos regionales",
            ],
            en: &[
                "Córdoba's hills: a travel guide",
                "Getting around the Sierras de Córdoba",
                "Top things to do in Córdoba province",
            ],
        },
        paginas: &[
            ("/destinos/cordoba", "Córdoba | {marca}", "Córdoba | {marca}"),
            ("/ofertas", "Ofertas | {marca}", "Deals | {marca}"),
            ("/ayuda", "Centro de ayuda | {marca}", "Help centre | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_BASE),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorDimension(Metric::Mencion, "seccion"),
            Tabla::PorDimension(Metric::Protagonismo, "alcance"),
            Tabla::ModeloDimension(Metric::Mencion, "seccion", "booking"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("seccion")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(12),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan cuatro secciones del viaje con cuatro zonas (los valles de Punilla, Calamuchita y Traslasierra, y Córdoba capital); una parte se formula en inglés.",
        con_hallazgos: true,
    }
}
