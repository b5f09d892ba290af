//! Hotel chains in the Southern Cone (Argentina, Chile, Uruguay).
//!
//! The one regional study: the same chains compete in Buenos Aires, Santiago, Montevideo and
//! Punta del Este, and business travellers ask in English as often as in Spanish. Questions
//! cross the purpose of the trip with the country.

use generator::model::Metric;

use super::comun::{METRICAS_BASE, METRICAS_TODAS, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, comparar, cruzar};

const ALCANCE: &[(&str, &[&str])] = &[
    (
        "Argentina",
        &[
            "Viajo a Buenos Aires en marzo.",
            "Voy a Mendoza unos días.",
            "Tengo que ir a Córdoba capital por una semana.",
        ],
    ),
    ("Chile", &["Viajo a Santiago de Chile la semana que viene.", "Voy a Viña del Mar con mi pareja."]),
    ("Uruguay", &["Voy a Montevideo por trabajo.", "Vamos a Punta del Este en febrero."]),
    (
        "regional",
        &["Hago una gira por Buenos Aires, Santiago y Montevideo.", "Este año tengo varios viajes por el Cono Sur."],
    ),
];

const ALCANCE_EN: &[(&str, &[&str])] = &[
    ("Argentina", &["I'm travelling to Buenos Aires next month.", "I'll be in Mendoza for a wine trip."]),
    ("Chile", &["I'm heading to Santiago, Chile, for a conference."]),
    ("Uruguay", &["I'm visiting Montevideo for work.", "We're spending a week in Punta del Este."]),
    ("regional", &["I'm doing a business trip through Buenos Aires, Santiago and Montevideo."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("negocios", 'L', "¿Qué cadena hotelera me recomiendan para un viaje de trabajo?"),
    ("negocios", 'L', "¿Qué hotel de cadena tiene buen wifi y salas de reuniones?"),
    ("negocios", 'C', "¿Conviene sumarse a un programa de fidelidad hotelero si viajo seguido por trabajo?"),
    ("vacaciones", 'L', "¿Qué cadena de hoteles conviene para ir con chicos?"),
    ("vacaciones", 'L', "¿Qué hoteles de cadena tienen pileta y buen desayuno?"),
    ("vacaciones", 'C', "¿Conviene reservar directo con el hotel o por una agencia online?"),
    ("lujo", 'L', "¿Cuáles son los hoteles de lujo más recomendados?"),
    ("lujo", 'L', "¿Qué hotel cinco estrellas recomiendan para una luna de miel?"),
    ("económico", 'L', "¿Qué cadena de hoteles económicos es confiable?"),
    ("económico", 'L', "¿Dónde dormir bien y barato en un hotel de cadena?"),
    ("económico", 'C', "¿Cómo consigo mejor precio en hoteles de cadena?"),
];

const PLANTILLAS_EN: &[(&str, char, &str)] = &[
    ("negocios", 'L', "Which hotel chains are best for business travel?"),
    ("negocios", 'L', "Which hotels have the best meeting facilities and reliable wifi?"),
    ("vacaciones", 'L', "What are good family-friendly hotel chains?"),
    ("lujo", 'L', "What are the best luxury hotels?"),
    ("económico", 'L', "Which budget hotel chains are reliable?"),
    ("negocios", 'C', "Is it worth joining a hotel loyalty program for regional travel?"),
];

const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("negocios", "marriott", "Sheraton", "hilton", "Hilton", "¿Qué es mejor para un viaje de negocios, {a_o_b}?"),
    ("lujo", "fourseasons", "Four Seasons", "alvear", "Alvear Palace", "¿Cuál recomiendan más, {a_o_b}?"),
    ("económico", "accor", "Ibis", "wyndham", "Howard Johnson", "Para algo económico, ¿conviene {a_o_b}?"),
    ("vacaciones", "enjoy", "Enjoy", "melia", "Meliá", "Para unas vacaciones en familia, ¿{a_o_b}?"),
];

const PARES_EN: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("negocios", "hyatt", "Hyatt", "marriott", "Marriott", "Hyatt or Marriott for a business trip?"),
    (
        "negocios",
        "nh",
        "NH Collection",
        "radisson",
        "Radisson",
        "NH Collection or Radisson: which is better for work trips?",
    ),
];

fn marcas() -> Vec<Marca> {
    vec![
        Marca {
            id: "marriott",
            nombre: "Marriott",
            alias: &["~JW Marriott", "Sheraton", "~Marriott Bonvoy", "~Four Points"],
            excluir: &[],
            dominios: &["marriott.com"],
            peso: 1.0,
            foco: &["negocios", "lujo"],
            debil: &["económico"],
            neg: 0.12,
            pro: Textos {
                es: &[
                    "tiene hoteles en todas las capitales de la región",
                    "negocios|tiene hoteles bien ubicados cerca de las zonas de oficinas",
                    "negocios|suma puntos con Marriott Bonvoy, el programa de fidelidad más grande",
                    "lujo|tiene opciones de alta gama con servicio muy cuidado",
                    "vacaciones|tiene hoteles con pileta y servicios para familias",
                ],
                en: &[
                    "has properties in every capital of the region",
                    "negocios|has well-located hotels near business districts",
                    "negocios|has the largest loyalty program, Marriott Bonvoy",
                ],
            },
            contra: Textos {
                es: &["sus tarifas están entre las más altas", "algunos hoteles de la cadena necesitan renovación"],
                en: &["has rates among the highest"],
            },
        },
        Marca {
            id: "hilton",
            nombre: "Hilton",
            alias: &["~Hampton by Hilton", "~DoubleTree"],
            excluir: &[],
            dominios: &["hilton.com"],
            peso: 0.8,
            foco: &["negocios"],
            debil: &[],
            neg: 0.12,
            pro: Textos {
                es: &[
                    "tiene un estándar de servicio muy parejo en todos sus hoteles",
                    "negocios|tiene buenas salas de reuniones y centro de negocios",
                    "negocios|permite hacer el check-in digital y usar la llave desde el celular",
                    "vacaciones|tiene desayunos muy completos",
                    "económico|tiene la línea Hampton, más accesible y con desayuno incluido",
                ],
                en: &[
                    "has very consistent service standards",
                    "negocios|has good meeting rooms and a business center",
                    "negocios|offers digital check-in and mobile keys",
                ],
            },
            contra: Textos {
                es: &["tiene pocos hoteles fuera de las grandes ciudades"],
                en: &["has few hotels outside the big cities"],
            },
        },
        Marca {
            id: "accor",
            nombre: "Accor",
            alias: &["~Sofitel", "~Novotel", "~Ibis", "~Mercure"],
            excluir: &[],
            dominios: &["accor.com"],
            peso: 0.85,
            foco: &["económico", "vacaciones", "Uruguay"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene opciones para cada presupuesto, desde Ibis hasta Sofitel",
                    "económico|tiene hoteles Ibis muy prácticos y con precios accesibles",
                    "lujo|tiene el Sofitel Montevideo Casino Carrasco, uno de los hoteles más elegantes de la región",
                    "negocios|tiene hoteles Novotel cómodos para viajes de trabajo",
                    "vacaciones|tiene hoteles Novotel donde los chicos suelen alojarse sin cargo",
                ],
                en: &[
                    "has options for every budget, from Ibis to Sofitel",
                    "económico|has practical, affordable Ibis hotels",
                    "negocios|has comfortable Novotel hotels for work trips",
                ],
            },
            contra: Textos {
                es: &["las habitaciones de Ibis son chicas", "la calidad varía bastante entre marcas de la cadena"],
                en: &["has small rooms at its budget brand"],
            },
        },
        Marca {
            id: "ihg",
            nombre: "IHG",
            alias: &["~InterContinental", "~Holiday Inn", "~Crowne Plaza"],
            excluir: &[],
            dominios: &["ihg.com"],
            peso: 0.5,
            foco: &["negocios"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene hoteles Holiday Inn con buena relación precio-calidad",
                    "negocios|tiene hoteles InterContinental con buen servicio para ejecutivos",
                    "negocios|suma beneficios con el programa IHG One Rewards",
                    "económico|tiene tarifas accesibles en la línea Holiday Inn Express",
                ],
                en: &[
                    "has good-value Holiday Inn hotels",
                    "negocios|has InterContinental hotels with strong executive service",
                ],
            },
            contra: Textos {
                es: &["algunos de sus hoteles en la región son antiguos"],
                en: &["has some older properties in the region"],
            },
        },
        Marca {
            id: "hyatt",
            nombre: "Hyatt",
            alias: &["~Park Hyatt", "~Grand Hyatt", "~Hyatt Centric"],
            excluir: &[],
            dominios: &["hyatt.com"],
            peso: 0.5,
            foco: &["lujo", "Chile"],
            debil: &["económico"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene pocos hoteles pero muy bien ubicados",
                    "lujo|tiene el Park Hyatt Mendoza, frente a la plaza principal",
                    "lujo|ofrece servicio de alta gama y buen spa",
                    "negocios|tiene el Hyatt Centric Montevideo, moderno y bien conectado",
                ],
                en: &["has few but very well located hotels", "lujo|offers high-end service and a good spa"],
            },
            contra: Textos {
                es: &["tiene muy pocas propiedades en el Cono Sur"],
                en: &["has very few properties in the Southern Cone"],
            },
        },
        Marca {
            id: "nh",
            nombre: "NH Hotels",
            alias: &["NH", "NH Collection"],
            excluir: &[],
            dominios: &["nh-hotels.com"],
            peso: 0.6,
            foco: &["negocios", "Argentina"],
            debil: &["lujo"],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene varios hoteles céntricos en Buenos Aires",
                    "negocios|ofrece tarifas corporativas y salas de reuniones",
                    "negocios|tiene hoteles bien conectados con el microcentro",
                    "económico|suele tener buena relación precio-calidad",
                ],
                en: &[
                    "has several central hotels in Buenos Aires",
                    "negocios|offers corporate rates and meeting rooms",
                ],
            },
            contra: Textos {
                es: &["algunas habitaciones son chicas", "el desayuno no siempre está incluido"],
                en: &["has some small rooms"],
            },
        },
        Marca {
            id: "wyndham",
            nombre: "Wyndham",
            alias: &["~Howard Johnson", "Wyndham Hotels"],
            excluir: &[],
            dominios: &["wyndhamhotels.com", "hojoar.com"],
            peso: 0.45,
            foco: &["económico", "Argentina", "vacaciones"],
            debil: &["lujo"],
            neg: 0.2,
            pro: Textos {
                es: &[
                    "tiene hoteles Howard Johnson en muchas ciudades del interior",
                    "económico|tiene tarifas accesibles con desayuno incluido",
                    "vacaciones|tiene hoteles con pileta en destinos turísticos",
                    "negocios|tiene hoteles prácticos sobre rutas y accesos",
                ],
                en: &[
                    "has Howard Johnson hotels in many Argentine cities",
                    "económico|has affordable rates with breakfast included",
                ],
            },
            contra: Textos {
                es: &["la calidad es muy despareja entre hoteles", "algunas propiedades se ven desactualizadas"],
                en: &["has uneven quality across hotels"],
            },
        },
        Marca {
            id: "melia",
            nombre: "Meliá",
            alias: &["Melia", "Meliá Hotels"],
            excluir: &[],
            dominios: &["melia.com"],
            peso: 0.35,
            foco: &["vacaciones"],
            debil: &["económico"],
            neg: 0.12,
            pro: Textos {
                es: &[
                    "tiene muy buen desayuno y atención",
                    "vacaciones|tiene hoteles con buena pileta y servicios para familias",
                    "negocios|tiene el Meliá Buenos Aires, bien ubicado para trabajar",
                ],
                en: &["has a great breakfast and service", "vacaciones|has family-friendly hotels with good pools"],
            },
            contra: Textos { es: &["tiene pocos hoteles en la región"], en: &["has few hotels in the region"] },
        },
        Marca {
            id: "radisson",
            nombre: "Radisson",
            alias: &["Radisson Blu", "Radisson Hotels"],
            excluir: &[],
            dominios: &["radissonhotels.com"],
            peso: 0.35,
            foco: &["negocios", "Uruguay"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene el Radisson Montevideo sobre la plaza Independencia",
                    "negocios|tiene buena infraestructura para eventos y congresos",
                    "vacaciones|tiene vistas muy lindas en sus hoteles frente al mar",
                ],
                en: &["has a centrally located hotel in Montevideo", "negocios|has good infrastructure for events"],
            },
            contra: Textos {
                es: &["algunas instalaciones necesitan una renovación"],
                en: &["has some facilities that need renovation"],
            },
        },
        Marca {
            id: "fourseasons",
            nombre: "Four Seasons",
            alias: &["Four Seasons Buenos Aires"],
            excluir: &[],
            dominios: &["fourseasons.com"],
            peso: 0.35,
            foco: &["lujo"],
            debil: &["económico", "negocios"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "lujo|tiene uno de los servicios más cuidados de Buenos Aires",
                    "lujo|combina una torre moderna con una mansión histórica en Recoleta",
                    "es sinónimo de atención personalizada",
                ],
                en: &[
                    "lujo|has some of the most attentive service in Buenos Aires",
                    "is synonymous with personalised service",
                ],
            },
            contra: Textos { es: &["es de las opciones más caras"], en: &["is among the most expensive options"] },
        },
        Marca {
            id: "alvear",
            nombre: "Alvear Hotels",
            alias: &["~Alvear Palace", "~Alvear Icon"],
            excluir: &["avenida Alvear"],
            dominios: &["alvearpalace.com"],
            peso: 0.3,
            foco: &["lujo", "Argentina"],
            debil: &["económico", "Chile", "Uruguay"],
            neg: 0.08,
            pro: Textos {
                es: &[
                    "lujo|tiene el Alvear Palace, un clásico del lujo porteño",
                    "lujo|tiene el Alvear Icon en Puerto Madero, con vistas increíbles",
                    "es una cadena argentina con mucha tradición",
                ],
                en: &[
                    "lujo|owns the Alvear Palace, a Buenos Aires classic",
                    "is an Argentine group with a long tradition",
                ],
            },
            contra: Textos { es: &["solo tiene hoteles en Buenos Aires"], en: &["only has hotels in Buenos Aires"] },
        },
        Marca {
            id: "fen",
            nombre: "Fën Hoteles",
            alias: &["Fen Hoteles", "~Dazzler", "~Esplendor"],
            excluir: &[],
            dominios: &["fenhoteles.com"],
            peso: 0.3,
            foco: &["económico", "Argentina"],
            debil: &["lujo"],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "es una cadena argentina con hoteles de diseño en varias ciudades",
                    "económico|tiene hoteles Dazzler con buena relación precio-calidad",
                    "negocios|tiene hoteles modernos y bien ubicados para viajes cortos",
                ],
                en: &[
                    "is an Argentine group with design hotels in several cities",
                    "económico|has good-value Dazzler hotels",
                ],
            },
            contra: Textos { es: &["el servicio varía según el hotel"], en: &["has service that varies by hotel"] },
        },
        Marca {
            id: "enjoy",
            nombre: "Enjoy",
            alias: &["~Enjoy Punta del Este", "~Enjoy Viña del Mar"],
            excluir: &["enjoy the", "enjoy your", "enjoy it"],
            dominios: &["enjoy.cl"],
            peso: 0.3,
            foco: &["vacaciones", "Chile", "Uruguay"],
            debil: &["negocios", "Argentina"],
            neg: 0.2,
            pro: Textos {
                es: &[
                    "vacaciones|combina hotel, casino y spa en Punta del Este y Viña del Mar",
                    "vacaciones|tiene actividades para chicos en temporada",
                    "tiene resorts frente al mar",
                ],
                en: &["vacaciones|combines hotel, casino and spa in Punta del Este", "has beachfront resorts"],
            },
            contra: Textos {
                es: &["en temporada alta se llena y los precios suben mucho"],
                en: &["gets crowded and pricey in high season"],
            },
        },
        Marca {
            id: "sonesta",
            nombre: "Sonesta",
            alias: &["Sonesta Hotels"],
            excluir: &[],
            dominios: &["sonesta.com"],
            peso: 0.2,
            foco: &["Chile", "negocios"],
            debil: &["lujo"],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene hoteles funcionales en Santiago y Concepción",
                    "negocios|ofrece tarifas corporativas competitivas",
                ],
                en: &["has functional hotels in Santiago", "negocios|offers competitive corporate rates"],
            },
            contra: Textos { es: &["tiene poca presencia fuera de Chile"], en: &["has little presence outside Chile"] },
        },
    ]
}

pub(crate) fn industria() -> Industria {
    let es = &[("idioma", "es")];
    let en = &[("idioma", "en")];
    let mut preguntas = cruzar("seccion", "alcance", PLANTILLAS, ALCANCE, "es", es);
    preguntas.extend(cruzar("seccion", "alcance", PLANTILLAS_EN, ALCANCE_EN, "en", en));
    preguntas.extend(comparar("seccion", "alcance", PARES, ALCANCE, "es", es));
    preguntas.extend(comparar("seccion", "alcance", PARES_EN, ALCANCE_EN, "en", en));
    Industria {
        slug: "cadenas-hoteleras-cono-sur-2026",
        nombre: "Cadenas hoteleras en el Cono Sur 2026",
        nombre_en: "Hotel chains in the Southern Cone 2026",
        descripcion: "Qué cadenas hoteleras recomiendan los asistentes de IA para viajes de negocios, vacaciones, lujo y presupuesto ajustado en Argentina, Chile y Uruguay, en español y en inglés.",
        descripcion_en: "Which hotel chains AI assistants recommend for business trips, holidays, luxury stays and tight budgets in Argentina, Chile and Uruguay, in Spanish and English.",
        industria: "Turismo y hotelería",
        subindustria: "Cadenas hoteleras",
        pais: &["Argentina", "Chile", "Uruguay"],
        idiomas: &["es", "en"],
        tags: &["hoteles", "cadenas hoteleras", "viajes de negocios", "turismo", "Cono Sur", "Chile", "Uruguay"],
        inicio: (3, 2),
        dias: 21,
        publicado: "2026-04-08",
        cambio_version: true,
        dimensiones: vec![
            dimension("seccion", "Motivo del viaje", "Trip purpose", &["negocios", "vacaciones", "lujo", "económico"]),
            dimension("alcance", "País", "Country", &["Argentina", "Chile", "Uruguay", "regional"]),
            dimension("idioma", "Idioma", "Language", &["es", "en"]),
        ],
        n_preguntas: 150,
        preguntas,
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "accor", 1.9),
            ("claude-sonnet-4-5", "nh", 1.6),
            ("gpt-5-mini", "fen", 0.1),
            ("claude-haiku-4-5", "enjoy", 0.0),
        ],
        sin_marca: 0.14,
        debil_factor: 0.2,
        salud: false,
        consejos: Textos {
            es: &[
                "Compará la tarifa final con impuestos incluidos: en Argentina los extranjeros pueden no pagar el IVA si pagan con tarjeta del exterior.",
                "Reservar directo en la web del hotel suele dar acceso a tarifas de socio y cancelación más flexible.",
                "Leé las reseñas más recientes, no el promedio histórico.",
                "Fijate si el desayuno está incluido; en muchos hoteles se cobra aparte.",
                "Revisá la política de cancelación antes de pagar.",
                "negocios|Si viajás por trabajo, pedí la tarifa corporativa de tu empresa.",
                "negocios|Elegí un hotel cerca de donde tenés las reuniones: el tránsito en Santiago y Buenos Aires puede ser pesado.",
                "vacaciones|Confirmá si los chicos se alojan sin cargo y hasta qué edad.",
                "vacaciones|En enero y febrero la costa se llena: reservá con anticipación.",
                "lujo|En los hoteles de lujo conviene preguntar por paquetes con spa o cena incluidos.",
                "económico|Los hoteles económicos de cadena suelen ser más previsibles que los independientes baratos.",
                "Chile|En Chile, los turistas extranjeros que pagan en dólares están exentos del IVA hotelero.",
                "Uruguay|En Uruguay, pagar con tarjeta extranjera suele dar devolución de IVA en alojamiento.",
            ],
            en: &[
                "Compare the final rate with taxes included.",
                "Booking direct usually gives member rates and more flexible cancellation.",
                "Read the most recent reviews rather than the overall score.",
                "Check whether breakfast is included.",
                "negocios|Ask for your company's corporate rate.",
                "Chile|In Chile, foreign tourists paying in dollars are exempt from hotel VAT.",
            ],
        },
        perfiles: Textos {
            es: &[
                "marriott,hilton,ihg|viajás seguido por trabajo y querés sumar puntos",
                "nh,radisson,sonesta|buscás una tarifa corporativa razonable",
                "fourseasons,alvear,hyatt|buscás una experiencia de lujo",
                "accor,wyndham,fen|querés cuidar el presupuesto",
                "enjoy,melia|vas en familia y querés pileta y actividades",
                "alvear,fen|preferís una cadena local",
                "marriott,accor|necesitás opciones en varias ciudades",
            ],
            en: &[
                "marriott,hilton,ihg,hyatt|you travel often for work and collect points",
                "accor,wyndham,fen|you're on a budget",
                "fourseasons,alvear|you want a luxury experience",
                "nh,radisson|you want a reasonable corporate rate",
            ],
        },
        medios: vec![
            Medio { host: "www.tripadvisor.com.ar", nombre: "Tripadvisor", ruta: "/", idioma: "es" },
            Medio { host: "www.tripadvisor.com", nombre: "Tripadvisor", ruta: "/", idioma: "en" },
            Medio { host: "www.booking.com", nombre: "Booking.com", ruta: "/articulos/", idioma: "*" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/turismo/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/viajes/", idioma: "es" },
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/turismo/{fecha}/", idioma: "es" },
            Medio { host: "www.latercera.com", nombre: "La Tercera", ruta: "/mouse/", idioma: "es" },
            Medio { host: "www.emol.com", nombre: "Emol", ruta: "/noticias/Tendencias/", idioma: "es" },
            Medio { host: "www.elpais.com.uy", nombre: "El País Uruguay", ruta: "/viajes/", idioma: "es" },
            Medio { host: "www.cntraveler.com", nombre: "Condé Nast Traveler", ruta: "/gallery/", idioma: "en" },
            Medio { host: "thepointsguy.com", nombre: "The Points Guy", ruta: "/guide/", idioma: "en" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/travel/comments/", idioma: "en" },
        ],
        titulos: Textos {
            es: &[
                "Chile|Los mejores hoteles para viajes de negocios en Santiago",
                "Argentina|Hoteles de lujo en Buenos Aires: la guía 2026",
                "Uruguay|Dónde alojarse en Montevideo: cadenas y boutique",
                "Uruguay|Punta del Este: hoteles para ir con chicos",
                "Programas de fidelidad hotelera: cuál conviene",
                "Hoteles económicos confiables en el Cono Sur",
                "Argentina|Mendoza: dónde dormir cerca de las bodegas",
                "Cómo conseguir mejor precio en hoteles de cadena",
            ],
            en: &[
                "Chile|Best business hotels in Santiago de Chile",
                "Argentina|Where to stay in Buenos Aires: a hotel guide",
                "Hotel loyalty programs compared",
                "Uruguay|Montevideo hotel guide for business travellers",
                "The best luxury hotels in South America",
            ],
        },
        paginas: &[
            ("/es/hoteles/argentina/", "Hoteles en Argentina | {marca}", "Hotels in Argentina | {marca}"),
            ("/es/ofertas/", "Ofertas y promociones | {marca}", "Offers | {marca}"),
            ("/es/programa-de-fidelidad/", "Programa de fidelidad | {marca}", "Loyalty program | {marca}"),
            ("/es/reuniones-y-eventos/", "Reuniones y eventos | {marca}", "Meetings and events | {marca}"),
            ("/es/destinos/chile/", "Hoteles en Chile | {marca}", "Hotels in Chile | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_TODAS),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorDimension(Metric::Mencion, "alcance"),
            Tabla::PorDimension(Metric::Protagonismo, "seccion"),
            Tabla::ModeloDimension(Metric::Protagonismo, "alcance", "marriott"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("alcance")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(12),
            Tabla::MarcasFiltro(METRICAS_BASE, "idioma", "en"),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan el motivo del viaje con el país de destino (o un viaje por varios países); alrededor de un cuarto se formula en inglés, como lo haría un viajero de negocios extranjero.",
        con_hallazgos: true,
    }
}
