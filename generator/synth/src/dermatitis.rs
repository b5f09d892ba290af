//! Atopic dermatitis: what assistants tell patients and parents in Argentina.
//!
//! A health study: the entities are prescription biologics and JAK inhibitors, pharmacy
//! emollients and reference institutions, and many answers rightly name none of them and
//! send the reader to a dermatologist or paediatrician. Questions cross the topic (daily
//! care, flares, treatment, biologics) with who is affected (babies to adults).

use generator::model::Metric;

use super::comun::{METRICAS_TODAS, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, comparar, cruzar};

const GRUPOS: &[(&str, &[&str])] = &[
    (
        "bebés",
        &[
            "Mi bebé de 8 meses tiene la piel muy seca y con placas rojas.",
            "Mi hijo de un año tiene dermatitis atópica.",
        ],
    ),
    (
        "niños",
        &["Mi hija de 6 años tiene dermatitis atópica desde chiquita.", "Mi hijo de 9 años se rasca mucho de noche."],
    ),
    (
        "adolescentes",
        &[
            "Tengo 15 años y tengo dermatitis atópica en los pliegues.",
            "Mi hijo de 14 tiene brotes cada vez más seguidos.",
        ],
    ),
    (
        "adultos",
        &[
            "Tengo 32 años y dermatitis atópica desde la infancia.",
            "Tengo 45 años y me diagnosticaron dermatitis atópica moderada.",
        ],
    ),
];

const GRUPOS_EN: &[(&str, &[&str])] = &[
    ("bebés", &["We just moved to Buenos Aires and our baby has eczema."]),
    ("niños", &["My 7-year-old has atopic dermatitis and we live in Argentina."]),
    ("adolescentes", &["I'm 16 and I have eczema on my arms and neck."]),
    ("adultos", &["I'm an adult with moderate eczema living in Argentina."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("cuidado diario", 'L', "¿Qué crema emoliente recomiendan para la dermatitis atópica?"),
    ("cuidado diario", 'L', "¿Qué jabón o syndet se puede usar para el baño?"),
    ("cuidado diario", 'C', "¿Cómo tiene que ser el baño diario?"),
    ("cuidado diario", 'C', "¿Qué ropa conviene usar para no irritar la piel?"),
    ("brotes", 'C', "¿Qué hago cuando aparece un brote?"),
    ("brotes", 'L', "¿Qué crema sirve para calmar la picazón durante un brote?"),
    ("brotes", 'C', "¿Cuándo hay que consultar de urgencia por un brote?"),
    ("tratamiento", 'L', "¿Qué tratamientos existen para la dermatitis atópica moderada?"),
    ("tratamiento", 'C', "¿Los corticoides en crema son seguros?"),
    ("tratamiento", 'L', "¿Qué especialista o centro recomiendan para tratarla en Buenos Aires?"),
    ("biológicos", 'L', "¿Qué medicamentos biológicos hay para la dermatitis atópica en Argentina?"),
    ("biológicos", 'L', "¿Qué diferencia hay entre los biológicos y los inhibidores de JAK?"),
    ("biológicos", 'C', "¿La obra social cubre los tratamientos biológicos?"),
];

const PLANTILLAS_EN: &[(&str, char, &str)] = &[
    ("cuidado diario", 'L', "What moisturizer do dermatologists recommend for atopic dermatitis?"),
    ("biológicos", 'L', "What biologic treatments are available for atopic dermatitis in Argentina?"),
    ("brotes", 'C', "What should I do during an eczema flare?"),
];

const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("biológicos", "dupixent", "Dupixent", "rinvoq", "Rinvoq", "¿Qué es mejor para la dermatitis atópica, {a_o_b}?"),
    (
        "cuidado diario",
        "larocheposay",
        "La Roche-Posay",
        "eucerin",
        "Eucerin",
        "¿Qué crema es mejor, la de {a} o la de {b}?",
    ),
];

fn marcas() -> Vec<Marca> {
    let biologico = &["bebés", "niños"];
    vec![
        Marca {
            id: "dupixent",
            nombre: "Dupixent",
            alias: &[],
            excluir: &[],
            dominios: &["dupixent.com", "sanofi.com.ar"],
            peso: 1.0,
            foco: &["biológicos", "tratamiento"],
            debil: &["cuidado diario"],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "es el biológico con más experiencia de uso en dermatitis atópica moderada a grave",
                    "biológicos|se aplica con una inyección subcutánea cada dos semanas",
                    "bebés,niños|está aprobado también en chicos a partir de los seis meses",
                    "tratamiento|suele indicarse cuando los tratamientos tópicos no alcanzan",
                ],
                en: &[
                    "is the biologic with the most experience in moderate-to-severe atopic dermatitis",
                    "is given as a subcutaneous injection every two weeks",
                ],
            },
            contra: Textos {
                es: &[
                    "puede causar conjuntivitis como efecto adverso",
                    "tiene un costo muy alto y suele requerir autorización de la obra social",
                ],
                en: &["is very expensive and usually needs insurer approval"],
            },
        },
        Marca {
            id: "rinvoq",
            nombre: "Rinvoq",
            alias: &[],
            excluir: &[],
            dominios: &["abbvie.com.ar"],
            peso: 0.55,
            foco: &["biológicos"],
            debil: biologico,
            neg: 0.25,
            pro: Textos {
                es: &[
                    "es un inhibidor de JAK que se toma por vía oral una vez por día",
                    "biológicos|suele mostrar una mejoría rápida de la picazón",
                ],
                en: &["is a once-daily oral JAK inhibitor", "often relieves itch quickly"],
            },
            contra: Textos {
                es: &["requiere controles de laboratorio periódicos", "no se indica en menores de 12 años"],
                en: &["needs regular blood tests"],
            },
        },
        Marca {
            id: "cibinqo",
            nombre: "Cibinqo",
            alias: &[],
            excluir: &[],
            dominios: &["pfizer.com.ar"],
            peso: 0.3,
            foco: &["biológicos"],
            debil: biologico,
            neg: 0.25,
            pro: Textos {
                es: &[
                    "es otro inhibidor de JAK oral aprobado para dermatitis atópica",
                    "biológicos|es una alternativa cuando no se quieren inyecciones",
                ],
                en: &["is another oral JAK inhibitor approved for atopic dermatitis"],
            },
            contra: Textos {
                es: &["requiere controles médicos estrechos por sus posibles efectos adversos"],
                en: &["requires close monitoring for side effects"],
            },
        },
        Marca {
            id: "adtralza",
            nombre: "Adtralza",
            alias: &[],
            excluir: &[],
            dominios: &["leo-pharma.com"],
            peso: 0.3,
            foco: &["biológicos"],
            debil: biologico,
            neg: 0.15,
            pro: Textos {
                es: &[
                    "es un biológico (tralokinumab) que bloquea la interleuquina 13",
                    "biológicos|se aplica por vía subcutánea y está aprobado para adolescentes y adultos",
                ],
                en: &["is a biologic (tralokinumab) that blocks interleukin-13"],
            },
            contra: Textos { es: &["tiene menos disponibilidad en farmacias"], en: &["is less widely available"] },
        },
        Marca {
            id: "ebglyss",
            nombre: "Ebglyss",
            alias: &[],
            excluir: &[],
            dominios: &["lilly.com"],
            peso: 0.25,
            foco: &["biológicos"],
            debil: biologico,
            neg: 0.15,
            pro: Textos {
                es: &[
                    "es uno de los biológicos más nuevos (lebrikizumab)",
                    "biológicos|permite pasar a una aplicación mensual en la etapa de mantenimiento",
                ],
                en: &["is one of the newest biologics (lebrikizumab)", "allows monthly maintenance dosing"],
            },
            contra: Textos {
                es: &["todavía hay poca experiencia de uso en el país"],
                en: &["has limited real-world experience locally"],
            },
        },
        Marca {
            id: "larocheposay",
            nombre: "La Roche-Posay",
            alias: &["La Roche Posay", "~Lipikar"],
            excluir: &[],
            dominios: &["laroche-posay.com.ar"],
            peso: 0.9,
            foco: &["cuidado diario", "brotes"],
            debil: &["biológicos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene la línea Lipikar, muy indicada para piel atópica",
                    "cuidado diario|tiene el bálsamo Lipikar AP+M, que ayuda a espaciar los brotes",
                    "cuidado diario|tiene un syndet que limpia sin resecar",
                    "brotes|tiene cremas calmantes que alivian la picazón",
                ],
                en: &[
                    "has the Lipikar line, widely recommended for atopic skin",
                    "has the Lipikar AP+M balm, which helps space out flares",
                ],
            },
            contra: Textos {
                es: &["es de las opciones más caras de farmacia"],
                en: &["is among the pricier pharmacy options"],
            },
        },
        Marca {
            id: "eucerin",
            nombre: "Eucerin",
            alias: &["~Eucerin AtopiControl"],
            excluir: &[],
            dominios: &["eucerin.com.ar"],
            peso: 0.7,
            foco: &["cuidado diario", "brotes"],
            debil: &["biológicos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene la línea AtopiControl, pensada para piel con tendencia atópica",
                    "brotes|tiene una crema para la fase aguda que calma el picor",
                    "cuidado diario|tiene un aceite de baño que ayuda a no resecar la piel",
                ],
                en: &["has the AtopiControl line for atopic-prone skin", "has a cream for acute flares"],
            },
            contra: Textos {
                es: &["algunos usuarios la encuentran algo pesada en verano"],
                en: &["can feel heavy in hot weather"],
            },
        },
        Marca {
            id: "cetaphil",
            nombre: "Cetaphil",
            alias: &["~Cetaphil Restoraderm"],
            excluir: &[],
            dominios: &["cetaphil.com.ar"],
            peso: 0.5,
            foco: &["cuidado diario"],
            debil: &["biológicos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene productos suaves y sin perfume",
                    "cuidado diario|tiene la línea Restoraderm para piel seca con picazón",
                ],
                en: &["has gentle, fragrance-free products"],
            },
            contra: Textos {
                es: &["en pieles muy secas puede quedarse corta"],
                en: &["may fall short on very dry skin"],
            },
        },
        Marca {
            id: "avene",
            nombre: "Avène",
            alias: &["~XeraCalm"],
            excluir: &[],
            dominios: &["avene.com.ar"],
            peso: 0.45,
            foco: &["cuidado diario", "brotes"],
            debil: &["biológicos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene la línea XeraCalm A.D para piel atópica",
                    "brotes|tiene agua termal que calma la piel irritada",
                ],
                en: &["has the XeraCalm A.D line for atopic skin"],
            },
            contra: Textos {
                es: &["no siempre se consigue en todas las farmacias"],
                en: &["is not always easy to find"],
            },
        },
        Marca {
            id: "bioderma",
            nombre: "Bioderma",
            alias: &["~Atoderm"],
            excluir: &[],
            dominios: &["bioderma.com.ar"],
            peso: 0.45,
            foco: &["cuidado diario"],
            debil: &["biológicos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene la línea Atoderm para piel seca y atópica",
                    "cuidado diario|tiene un aceite de ducha que limpia sin irritar",
                ],
                en: &["has the Atoderm line for dry and atopic skin"],
            },
            contra: Textos { es: &["sus envases grandes son caros"], en: &["is pricey in large sizes"] },
        },
        Marca {
            id: "mustela",
            nombre: "Mustela",
            alias: &["~Stelatopia"],
            excluir: &[],
            dominios: &["mustela.com.ar"],
            peso: 0.35,
            foco: &["bebés", "niños"],
            debil: &["biológicos", "adultos"],
            neg: 0.08,
            pro: Textos {
                es: &[
                    "tiene la línea Stelatopia, pensada para bebés con piel atópica",
                    "bebés,niños|es apta desde el nacimiento",
                ],
                en: &["has the Stelatopia line for babies with atopic skin"],
            },
            contra: Textos {
                es: &["es más cara que otras cremas emolientes"],
                en: &["costs more than other emollients"],
            },
        },
        Marca {
            id: "dermaglos",
            nombre: "Dermaglós",
            alias: &[],
            excluir: &[],
            dominios: &["dermaglos.com"],
            peso: 0.3,
            foco: &["cuidado diario", "bebés"],
            debil: &["biológicos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "es una marca argentina con cremas emolientes accesibles",
                    "bebés|tiene productos para la piel de bebés",
                ],
                en: &["is an Argentine brand with affordable emollients"],
            },
            contra: Textos {
                es: &["tiene menos opciones específicas para dermatitis atópica"],
                en: &["has fewer products specific to atopic dermatitis"],
            },
        },
        Marca {
            id: "sad",
            nombre: "Sociedad Argentina de Dermatología",
            alias: &[],
            excluir: &[],
            dominios: &["sad.org.ar"],
            peso: 0.35,
            foco: &["tratamiento", "brotes"],
            debil: &[],
            neg: 0.02,
            pro: Textos {
                es: &[
                    "publica información para pacientes y consensos de tratamiento",
                    "tratamiento|tiene un buscador de dermatólogos por zona",
                ],
                en: &["publishes patient information and treatment consensus statements"],
            },
            contra: Textos { es: &[], en: &[] },
        },
        Marca {
            id: "hospital-italiano",
            nombre: "Hospital Italiano",
            alias: &["Hospital Italiano de Buenos Aires"],
            excluir: &[],
            dominios: &["hospitalitaliano.org.ar"],
            peso: 0.25,
            foco: &["tratamiento", "adultos"],
            debil: &[],
            neg: 0.05,
            pro: Textos {
                es: &[
                    "tiene un servicio de dermatología de referencia",
                    "tratamiento|tiene experiencia en tratamientos sistémicos y biológicos",
                ],
                en: &["has a leading dermatology department"],
            },
            contra: Textos {
                es: &["los turnos pueden demorar varias semanas"],
                en: &["can have long waits for appointments"],
            },
        },
        Marca {
            id: "garrahan",
            nombre: "Hospital Garrahan",
            alias: &["Garrahan"],
            excluir: &[],
            dominios: &["garrahan.gov.ar"],
            peso: 0.2,
            foco: &["bebés", "niños"],
            debil: &["adultos"],
            neg: 0.05,
            pro: Textos {
                es: &[
                    "es el hospital pediátrico de referencia del país",
                    "bebés,niños|tiene dermatología pediátrica para casos complejos",
                ],
                en: &["is the country's reference children's hospital"],
            },
            contra: Textos {
                es: &["atiende casos derivados y la demanda es muy alta"],
                en: &["mostly sees referred cases"],
            },
        },
    ]
}

pub(crate) fn industria() -> Industria {
    let mut preguntas = cruzar("area_tematica", "grupo", PLANTILLAS, GRUPOS, "es", &[]);
    preguntas.extend(cruzar("area_tematica", "grupo", PLANTILLAS_EN, GRUPOS_EN, "en", &[]));
    preguntas.extend(comparar("area_tematica", "grupo", PARES, GRUPOS, "es", &[]));
    Industria {
        slug: "dermatitis-atopica-2026",
        nombre: "Dermatitis atópica: qué responden los asistentes de IA 2026",
        nombre_en: "Atopic dermatitis: what AI assistants answer 2026",
        descripcion: "Qué tratamientos, cremas e instituciones nombran los asistentes de IA cuando pacientes y padres argentinos preguntan por la dermatitis atópica, y con qué frecuencia derivan a la consulta médica sin nombrar marcas.",
        descripcion_en: "Which treatments, creams and institutions AI assistants name when Argentine patients and parents ask about atopic dermatitis, and how often they refer to a doctor without naming any brand.",
        industria: "Salud",
        subindustria: "Dermatología",
        pais: &["Argentina"],
        idiomas: &["es", "en"],
        tags: &["salud", "dermatología", "dermatitis atópica", "biológicos", "dermocosmética", "pediatría"],
        inicio: (2, 16),
        dias: 12,
        publicado: "2026-03-20",
        cambio_version: false,
        dimensiones: vec![
            dimension(
                "area_tematica",
                "Área temática",
                "Topic",
                &["cuidado diario", "brotes", "tratamiento", "biológicos"],
            ),
            dimension("grupo", "Grupo", "Group", &["bebés", "niños", "adolescentes", "adultos"]),
        ],
        n_preguntas: 96,
        preguntas,
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "larocheposay", 1.8),
            ("gpt-5", "dupixent", 1.3),
            ("claude-haiku-4-5", "cibinqo", 0.0),
        ],
        sin_marca: 0.32,
        debil_factor: 0.2,
        salud: true,
        consejos: Textos {
            es: &[
                "Aplicá la crema emoliente dos veces por día, aunque la piel esté bien.",
                "Bañate con agua tibia, no caliente, y en no más de diez minutos.",
                "Secá la piel con toques suaves, sin frotar, y aplicá la crema enseguida.",
                "Usá ropa de algodón y evitá la lana en contacto con la piel.",
                "Mantené las uñas cortas para evitar lastimaduras por rascado.",
                "No suspendas un tratamiento indicado sin hablar con tu dermatólogo.",
                "Identificá los desencadenantes: calor, sudor, estrés o ciertos jabones.",
                "tratamiento|Los corticoides tópicos son seguros si se usan como indica el médico y por el tiempo indicado.",
                "tratamiento|Llevá a la consulta fotos de los brotes y una lista de lo que ya probaste.",
                "bebés|En bebés, consultá siempre con el pediatra antes de usar cualquier producto nuevo.",
                "bebés,niños|Elegí productos sin perfume y formulados para piel atópica infantil.",
                "biológicos|Los biológicos se indican cuando los tratamientos tópicos no alcanzan, y los prescribe un especialista.",
                "biológicos|Para la cobertura, la obra social o prepaga suele pedir la historia clínica y un formulario del especialista.",
                "brotes|Si la piel supura, tiene costras amarillentas o hay fiebre, consultá rápido: puede haber una infección.",
                "brotes|Durante un brote, evitá productos nuevos y seguí el esquema que te indicó el médico.",
            ],
            en: &[
                "Apply an emollient twice a day, even when the skin looks fine.",
                "Use lukewarm water and keep baths short.",
                "Wear cotton and avoid wool against the skin.",
                "Don't stop a prescribed treatment without talking to your dermatologist.",
                "If the skin oozes or there is fever, see a doctor promptly.",
            ],
        },
        perfiles: Textos {
            es: &[
                "larocheposay,eucerin,cetaphil|buscás una crema emoliente de farmacia",
                "mustela,dermaglos,garrahan|se trata de un bebé",
                "dupixent,adtralza,ebglyss|el dermatólogo evaluó un tratamiento biológico",
                "rinvoq,cibinqo|el especialista propone un tratamiento oral",
                "avene,bioderma|la piel está muy reactiva",
                "sad,hospital-italiano|necesitás un especialista de referencia",
            ],
            en: &[
                "larocheposay,eucerin,cetaphil,avene,bioderma|you need a pharmacy emollient",
                "dupixent,adtralza,ebglyss,rinvoq,cibinqo|your dermatologist is considering systemic treatment",
            ],
        },
        medios: vec![
            Medio { host: "medlineplus.gov", nombre: "MedlinePlus", ruta: "/spanish/", idioma: "es" },
            Medio { host: "www.mayoclinic.org", nombre: "Mayo Clinic", ruta: "/es/diseases-conditions/", idioma: "es" },
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/salud/{fecha}/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/buena-vida/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/salud/", idioma: "es" },
            Medio { host: "www.argentina.gob.ar", nombre: "Argentina.gob.ar", ruta: "/salud/", idioma: "es" },
            Medio {
                host: "www.sap.org.ar",
                nombre: "Sociedad Argentina de Pediatría",
                ruta: "/publicaciones/",
                idioma: "es",
            },
            Medio {
                host: "www.aad.org",
                nombre: "American Academy of Dermatology",
                ruta: "/public/diseases/",
                idioma: "en",
            },
            Medio { host: "nationaleczema.org", nombre: "National Eczema Association", ruta: "/eczema/", idioma: "en" },
        ],
        titulos: Textos {
            es: &[
                "Dermatitis atópica: síntomas, causas y tratamiento",
                "bebés|Cómo cuidar la piel de un bebé con dermatitis atópica",
                "biológicos|Qué son los biológicos para la dermatitis atópica",
                "adultos,tratamiento|Dermatitis atópica en adultos: nuevas opciones de tratamiento",
                "Eccema: diez consejos para el cuidado diario",
                "tratamiento,brotes|Corticoides tópicos: mitos y verdades",
                "Dermatitis atópica: cuándo consultar al dermatólogo",
            ],
            en: &[
                "Atopic dermatitis: diagnosis and treatment",
                "Eczema treatment options for adults",
                "bebés|How to care for a baby with eczema",
            ],
        },
        paginas: &[
            ("/dermatitis-atopica", "Dermatitis atópica | {marca}", "Atopic dermatitis | {marca}"),
            ("/productos/piel-atopica", "Piel atópica | {marca}", "Atopic skin | {marca}"),
            ("/pacientes", "Información para pacientes | {marca}", "Patient information | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_TODAS),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorDimension(Metric::Mencion, "area_tematica"),
            Tabla::PorDimension(Metric::Mencion, "grupo"),
            Tabla::ModeloDimension(Metric::Mencion, "area_tematica", "dupixent"),
            Tabla::Concentracion(None),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(12),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan cuatro áreas temáticas con cuatro grupos de pacientes; una parte se formula en inglés. En un estudio de salud, que una respuesta no nombre marcas y derive a la consulta médica es esperable y se refleja en tasas de mención más bajas.",
        con_hallazgos: true,
    }
}
