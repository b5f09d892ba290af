//! Rheumatology: rheumatoid arthritis, lupus, spondyloarthritis and osteoarthritis.
//!
//! A health study published without findings (the sample shows that an empty
//! `hallazgos.toml` is valid). Entities are prescription products, Argentine laboratories
//! and reference institutions; most answers send the patient to a rheumatologist and many
//! name no entity at all.

use generator::model::Metric;

use super::comun::{METRICAS_BASE, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, comparar, cruzar};

const GRUPOS: &[(&str, &[&str])] = &[
    (
        "pacientes",
        &[
            "Soy paciente y hace poco empecé a tratarme.",
            "Estoy en tratamiento hace varios años.",
            "Tengo 52 años y me lo diagnosticaron el año pasado.",
        ],
    ),
    (
        "familiares",
        &[
            "Pregunto por mi mamá, que está en tratamiento.",
            "Pregunto por mi pareja, que recibió el diagnóstico hace poco.",
            "Mi papá tiene 70 años y empezó con esto.",
        ],
    ),
];

const GRUPOS_EN: &[(&str, &[&str])] = &[
    ("pacientes", &["I was recently diagnosed and I live in Argentina."]),
    ("familiares", &["I'm asking for my mother, who lives in Buenos Aires."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("artritis reumatoidea", 'L', "¿Qué tratamientos biológicos hay para la artritis reumatoidea?"),
    ("artritis reumatoidea", 'L', "¿Qué medicamentos se usan para la artritis reumatoidea en Argentina?"),
    ("artritis reumatoidea", 'C', "¿Se puede hacer actividad física con artritis reumatoidea?"),
    ("artritis reumatoidea", 'L', "¿Dónde conviene atenderse por artritis reumatoidea en Buenos Aires?"),
    ("lupus", 'L', "¿Qué tratamientos existen para el lupus?"),
    ("lupus", 'C', "¿Qué cuidados hay que tener con el sol si tenés lupus?"),
    ("lupus", 'C', "¿El lupus se puede controlar con medicación?"),
    ("espondiloartritis", 'L', "¿Qué biológicos se usan para la espondilitis anquilosante?"),
    ("espondiloartritis", 'C', "¿Qué ejercicios sirven para la espondiloartritis?"),
    ("espondiloartritis", 'L', "¿Qué opciones hay si el antiinflamatorio ya no alcanza para la espondiloartritis?"),
    ("artrosis", 'C', "¿Qué se puede tomar para el dolor de la artrosis de rodilla?"),
    ("artrosis", 'L', "¿Qué antiinflamatorio recomiendan para la artrosis?"),
    ("artrosis", 'C', "¿Sirven los suplementos de colágeno para la artrosis?"),
];

const PLANTILLAS_EN: &[(&str, char, &str)] = &[
    ("artritis reumatoidea", 'L', "What biologic drugs are used for rheumatoid arthritis in Argentina?"),
    ("lupus", 'L', "What treatments are available for lupus?"),
    ("espondiloartritis", 'L', "Which biologics are used for ankylosing spondylitis?"),
    ("artrosis", 'C', "What helps with knee osteoarthritis pain?"),
];

const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "artritis reumatoidea",
        "humira",
        "Humira",
        "rinvoq",
        "Rinvoq",
        "¿Qué es mejor para la artritis reumatoidea, {a_o_b}?",
    ),
    ("artritis reumatoidea", "xeljanz", "Xeljanz", "olumiant", "Olumiant", "¿Qué diferencia hay entre {a} y {b}?"),
];

#[rustfmt::skip]
fn marcas() -> Vec<Marca> {
    #[allow(clippy::too_many_arguments)]
    fn producto(id: &'static str, nombre: &'static str, dominio: &'static [&'static str], peso: f64, foco: &'static [&'static str], neg: f64, pro: &'static [&'static str], pro_en: &'static [&'static str], contra: &'static [&'static str], contra_en: &'static [&'static str]) -> Marca {
        Marca {
            id,
            nombre,
            alias: &[],
            excluir: &[],
            dominios: dominio,
            peso,
            foco,
            debil: &["artrosis"],
            neg,
            pro: Textos { es: pro, en: pro_en },
            contra: Textos { es: contra, en: contra_en },
        }
    }
    vec![
        producto(
            "humira", "Humira", &["humira.com"], 1.0, &["artritis reumatoidea", "espondiloartritis"], 0.15,
            &[
                "es un anti-TNF (adalimumab) con muchos años de uso en artritis reumatoidea",
                "espondiloartritis|también está indicado en espondiloartritis y artritis psoriásica",
                "hoy tiene biosimilares que ayudan a bajar el costo",
            ],
            &["is an anti-TNF (adalimumab) with many years of use", "now has biosimilars that lower the cost"],
            &["aumenta el riesgo de infecciones y obliga a descartar tuberculosis antes de empezar"],
            &["raises the risk of infections"],
        ),
        producto(
            "rinvoq", "Rinvoq", &["rinvoq.com"], 0.7, &["artritis reumatoidea", "espondiloartritis"], 0.2,
            &["es un inhibidor de JAK oral que se toma una vez por día", "artritis reumatoidea|se usa cuando los tratamientos convencionales no alcanzan"],
            &["is a once-daily oral JAK inhibitor"],
            &["requiere controles de laboratorio periódicos"],
            &["needs regular blood tests"],
        ),
        producto(
            "xeljanz", "Xeljanz", &["xeljanz.com"], 0.5, &["artritis reumatoidea"], 0.25,
            &["fue el primer inhibidor de JAK aprobado para artritis reumatoidea (tofacitinib)", "se toma por vía oral, sin inyecciones"],
            &["was the first JAK inhibitor approved for rheumatoid arthritis"],
            &["tiene advertencias de seguridad cardiovascular en mayores de 50 con factores de riesgo"],
            &["carries cardiovascular safety warnings for older patients"],
        ),
        producto(
            "enbrel", "Enbrel", &["enbrel.com"], 0.45, &["artritis reumatoidea", "espondiloartritis"], 0.15,
            &["es un anti-TNF (etanercept) de aplicación subcutánea", "tiene una larga trayectoria y biosimilares disponibles"],
            &["is a subcutaneous anti-TNF (etanercept)"],
            &["requiere aplicaciones semanales"],
            &["requires weekly injections"],
        ),
        producto(
            "olumiant", "Olumiant", &["olumiant.com"], 0.35, &["artritis reumatoidea"], 0.2,
            &["es un inhibidor de JAK oral (baricitinib)", "artritis reumatoidea|es una opción cuando fallan los anti-TNF"],
            &["is an oral JAK inhibitor (baricitinib)"],
            &["requiere controles periódicos por sus posibles efectos adversos"],
            &["requires monitoring for side effects"],
        ),
        producto(
            "cosentyx", "Cosentyx", &["cosentyx.com"], 0.45, &["espondiloartritis"], 0.12,
            &["espondiloartritis|es un biológico (secukinumab) muy usado en espondiloartritis", "tiene buena respuesta en artritis psoriásica"],
            &["is a biologic (secukinumab) widely used in spondyloarthritis"],
            &["no está indicado para la artritis reumatoidea"],
            &["is not indicated for rheumatoid arthritis"],
        ),
        producto(
            "actemra", "Actemra", &["actemra.com"], 0.3, &["artritis reumatoidea"], 0.15,
            &["es un biológico (tocilizumab) que bloquea la interleuquina 6", "se puede usar solo, sin metotrexato"],
            &["is a biologic (tocilizumab) that blocks interleukin-6"],
            &["requiere controles de laboratorio"],
            &["requires lab monitoring"],
        ),
        producto(
            "orencia", "Orencia", &["orencia.com"], 0.25, &["artritis reumatoidea"], 0.12,
            &["es un biológico (abatacept) con un mecanismo distinto al de los anti-TNF"],
            &["is a biologic (abatacept) with a different mechanism from anti-TNFs"],
            &["tiene menos cobertura en algunas obras sociales"],
            &["is covered by fewer insurers"],
        ),
        producto(
            "benlysta", "Benlysta", &["benlysta.com"], 0.6, &["lupus"], 0.12,
            &["lupus|es un biológico (belimumab) aprobado para el lupus", "lupus|ayuda a reducir los brotes junto con el tratamiento de base"],
            &["is a biologic (belimumab) approved for lupus"],
            &["no reemplaza el tratamiento de base con hidroxicloroquina"],
            &["does not replace baseline treatment"],
        ),
        Marca {
            id: "gador",
            nombre: "Gador",
            alias: &["Laboratorios Gador"],
            excluir: &[],
            dominios: &["gador.com.ar"],
            peso: 0.3,
            foco: &["artrosis"],
            debil: &[],
            neg: 0.1,
            pro: Textos { es: &["es un laboratorio argentino con productos para el dolor y la inflamación", "tiene presencia en reumatología y traumatología"], en: &["is an Argentine laboratory with pain and inflammation products"] },
            contra: Textos { es: &[], en: &[] },
        },
        Marca {
            id: "elea",
            nombre: "Elea",
            alias: &["Laboratorio Elea"],
            excluir: &[],
            dominios: &["elea.com"],
            peso: 0.25,
            foco: &["artrosis"],
            debil: &[],
            neg: 0.1,
            pro: Textos { es: &["es un laboratorio argentino con una línea de productos para el dolor articular"], en: &["is an Argentine laboratory with joint-pain products"] },
            contra: Textos { es: &[], en: &[] },
        },
        Marca {
            id: "raffo",
            nombre: "Raffo",
            alias: &["Laboratorios Raffo"],
            excluir: &[],
            dominios: &["raffo.com.ar"],
            peso: 0.2,
            foco: &["artrosis"],
            debil: &[],
            neg: 0.1,
            pro: Textos { es: &["es un laboratorio argentino con analgésicos y antiinflamatorios de uso habitual"], en: &["is an Argentine laboratory with common painkillers"] },
            contra: Textos { es: &[], en: &[] },
        },
        Marca {
            id: "sar",
            nombre: "Sociedad Argentina de Reumatología",
            alias: &["SAR"],
            excluir: &[],
            dominios: &["sar.org.ar"],
            peso: 0.55,
            foco: &["lupus", "artritis reumatoidea"],
            debil: &[],
            neg: 0.02,
            pro: Textos {
                es: &["publica guías y material para pacientes", "tiene un listado de reumatólogos por provincia", "organiza campañas de diagnóstico temprano"],
                en: &["publishes guidelines and patient materials", "lists rheumatologists by province"],
            },
            contra: Textos { es: &[], en: &[] },
        },
        Marca {
            id: "hospital-clinicas",
            nombre: "Hospital de Clínicas",
            alias: &["Hospital de Clínicas José de San Martín"],
            excluir: &[],
            dominios: &["hospitaldeclinicas.uba.ar"],
            peso: 0.2,
            foco: &["artritis reumatoidea", "lupus"],
            debil: &[],
            neg: 0.08,
            pro: Textos { es: &["tiene un servicio de reumatología universitario de referencia"], en: &["has a leading university rheumatology department"] },
            contra: Textos { es: &["los turnos pueden demorar"], en: &["can have long waits"] },
        },
    ]
}

pub(crate) fn industria() -> Industria {
    let mut preguntas = cruzar("area_tematica", "grupo", PLANTILLAS, GRUPOS, "es", &[("idioma", "es")]);
    preguntas.extend(cruzar("area_tematica", "grupo", PLANTILLAS_EN, GRUPOS_EN, "en", &[("idioma", "en")]));
    preguntas.extend(comparar("area_tematica", "grupo", PARES, GRUPOS, "es", &[("idioma", "es")]));
    Industria {
        slug: "reumatologia-2026",
        nombre: "Reumatología: qué responden los asistentes de IA 2026",
        nombre_en: "Rheumatology: what AI assistants answer 2026",
        descripcion: "Qué tratamientos, laboratorios e instituciones nombran los asistentes de IA cuando pacientes argentinos y sus familias preguntan por artritis reumatoidea, lupus, espondiloartritis y artrosis. Se publica sin hallazgos: los datos y tablas quedan para el análisis del comprador.",
        descripcion_en: "Which treatments, laboratories and institutions AI assistants name when Argentine patients and their families ask about rheumatoid arthritis, lupus, spondyloarthritis and osteoarthritis. Published without findings: data and tables are left to the buyer's analysis.",
        industria: "Salud",
        subindustria: "Reumatología",
        pais: &["Argentina"],
        idiomas: &["es", "en"],
        tags: &["salud", "reumatología", "artritis reumatoidea", "lupus", "biológicos", "pacientes"],
        inicio: (4, 6),
        dias: 8,
        publicado: "2026-05-04",
        cambio_version: false,
        dimensiones: vec![
            dimension(
                "area_tematica",
                "Área temática",
                "Topic",
                &["artritis reumatoidea", "lupus", "espondiloartritis", "artrosis"],
            ),
            dimension("grupo", "Quién pregunta", "Who asks", &["pacientes", "familiares"]),
            dimension("idioma", "Idioma", "Language", &["es", "en"]),
        ],
        n_preguntas: 72,
        preguntas,
        marcas: marcas(),
        sesgos: &[("gemini-2.5-pro", "rinvoq", 1.8), ("gpt-5", "humira", 1.3), ("claude-haiku-4-5", "benlysta", 0.0)],
        sin_marca: 0.38,
        debil_factor: 0.2,
        salud: true,
        consejos: Textos {
            es: &[
                "El diagnóstico y el tratamiento los tiene que definir un reumatólogo.",
                "No suspendas ni cambies la medicación sin consultarlo con tu médico.",
                "Llevá a cada consulta la lista completa de medicamentos que tomás.",
                "Mantené las vacunas al día, sobre todo antes de empezar un biológico.",
                "La actividad física adaptada ayuda a mantener la movilidad.",
                "Dejar de fumar mejora la respuesta a los tratamientos.",
                "artritis reumatoidea|Cuanto antes se empieza el tratamiento de base, mejor se protegen las articulaciones.",
                "artritis reumatoidea|El metotrexato suele ser el primer tratamiento de base y requiere controles de laboratorio.",
                "lupus|Usá protector solar todos los días: el sol puede desencadenar brotes.",
                "lupus|La hidroxicloroquina es la base del tratamiento en la mayoría de los casos.",
                "espondiloartritis|Los ejercicios de estiramiento y la natación ayudan mucho en la espondiloartritis.",
                "artrosis|Bajar de peso reduce la carga sobre las rodillas.",
                "artrosis|El paracetamol y los antiinflamatorios se usan por períodos cortos y con indicación médica.",
                "artrosis|La kinesiología y el fortalecimiento muscular son parte central del tratamiento.",
                "familiares|Acompañar a las consultas ayuda a entender el tratamiento y sus controles.",
            ],
            en: &[
                "Diagnosis and treatment should be decided by a rheumatologist.",
                "Don't stop or change medication without talking to your doctor.",
                "Keep vaccinations up to date, especially before starting a biologic.",
                "Adapted physical activity helps maintain mobility.",
            ],
        },
        perfiles: Textos {
            es: &[
                "humira,enbrel|el reumatólogo indicó un anti-TNF",
                "rinvoq,xeljanz,olumiant|preferís un tratamiento oral",
                "cosentyx|se trata de espondiloartritis",
                "benlysta|se trata de lupus",
                "actemra,orencia|fallaron los anti-TNF",
                "sar,hospital-clinicas|buscás un especialista",
                "gador,elea,raffo|buscás un laboratorio nacional",
            ],
            en: &[
                "humira,enbrel|your rheumatologist suggested an anti-TNF",
                "rinvoq,xeljanz,olumiant|you prefer an oral treatment",
            ],
        },
        medios: vec![
            Medio { host: "medlineplus.gov", nombre: "MedlinePlus", ruta: "/spanish/", idioma: "es" },
            Medio { host: "www.mayoclinic.org", nombre: "Mayo Clinic", ruta: "/es/diseases-conditions/", idioma: "es" },
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/salud/{fecha}/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/salud/", idioma: "es" },
            Medio { host: "www.anmat.gob.ar", nombre: "ANMAT", ruta: "/medicamentos/", idioma: "es" },
            Medio { host: "www.argentina.gob.ar", nombre: "Argentina.gob.ar", ruta: "/salud/", idioma: "es" },
            Medio {
                host: "rheumatology.org",
                nombre: "American College of Rheumatology",
                ruta: "/patients/",
                idioma: "en",
            },
            Medio {
                host: "www.arthritis.org",
                nombre: "Arthritis Foundation",
                ruta: "/health-wellness/",
                idioma: "en",
            },
        ],
        titulos: Textos {
            es: &[
                "artritis reumatoidea|Artritis reumatoidea: síntomas, diagnóstico y tratamiento",
                "lupus|Lupus: qué es y cómo se trata",
                "espondiloartritis|Espondiloartritis: el dolor de espalda que no es mecánico",
                "artrosis|Artrosis de rodilla: qué hacer para el dolor",
                "Biológicos en reumatología: cómo funcionan",
                "Inhibidores de JAK: qué son y cuándo se indican",
            ],
            en: &[
                "artritis reumatoidea|Rheumatoid arthritis treatment options",
                "lupus|Living with lupus",
                "espondiloartritis|Ankylosing spondylitis: treatment overview",
                "Biologic drugs in rheumatology",
            ],
        },
        paginas: &[
            ("/pacientes", "Información para pacientes | {marca}", "Patient information | {marca}"),
            ("/tratamiento", "Tratamiento | {marca}", "Treatment | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_BASE),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorDimension(Metric::Mencion, "area_tematica"),
            Tabla::ModeloDimension(Metric::Mencion, "area_tematica", "humira"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("area_tematica")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(10),
            Tabla::MarcasFiltro(&[Metric::Mencion, Metric::Protagonismo], "grupo", "familiares"),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan cuatro áreas temáticas con quién pregunta (el paciente o un familiar); una parte se formula en inglés. Las entidades seguidas son productos de prescripción, laboratorios e instituciones; que una respuesta derive al reumatólogo sin nombrar ninguna es lo esperable.",
        con_hallazgos: false,
    }
}
