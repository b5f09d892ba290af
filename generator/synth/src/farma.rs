//! Over-the-counter medicines, laboratories and pharmacies in Argentina.
//!
//! The study that measures answer stability: every question is asked twice (dimension
//! `repeticion`), so a buyer can compare a model's two answers to the same question.
//! Entities are laboratories (with their best-known OTC products as aliases) and pharmacy
//! chains; questions cross the therapeutic area with who the medicine is for.

use generator::model::Metric;

use super::comun::{METRICAS_TODAS, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, cruzar, sobre};

const GRUPOS: &[(&str, &[&str])] = &[
    ("adultos", &["Tengo 35 años y trabajo todo el día.", "Soy adulta y no tomo otra medicación."]),
    ("niños", &["Es para mi hijo de 7 años.", "Es para mi hija de 10 años."]),
    (
        "mayores",
        &["Es para mi papá de 75, que toma otros remedios.", "Tengo 68 años y tomo medicación para la presión."],
    ),
];

const GRUPOS_EN: &[(&str, &[&str])] = &[
    ("adultos", &["I'm an expat living in Buenos Aires."]),
    ("niños", &["It's for my 6-year-old; we just moved to Argentina."]),
    ("mayores", &["It's for my elderly father, who is visiting Argentina."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("dolor y fiebre", 'L', "¿Qué marca de ibuprofeno recomiendan?"),
    ("dolor y fiebre", 'C', "¿Qué es mejor para el dolor de cabeza, ibuprofeno o paracetamol?"),
    ("dolor y fiebre", 'L', "¿Qué analgésico de venta libre es bueno para el dolor muscular?"),
    ("dolor y fiebre", 'L', "¿Qué recomiendan para bajar la fiebre?"),
    ("resfrío y alergia", 'L', "¿Qué antigripal de venta libre recomiendan?"),
    ("resfrío y alergia", 'L', "¿Qué antialérgico no da sueño?"),
    ("resfrío y alergia", 'C', "¿Conviene tomar vitamina C cuando hay un resfrío?"),
    ("digestivo", 'L', "¿Qué se puede tomar para la acidez?"),
    ("digestivo", 'L', "¿Qué sirve para el dolor de panza y los cólicos?"),
    ("digestivo", 'C', "¿Qué hacer ante una diarrea por algo que cayó mal?"),
    ("vitaminas", 'L', "¿Qué multivitamínico recomiendan?"),
    ("vitaminas", 'L', "¿Qué suplemento de magnesio es bueno?"),
    ("vitaminas", 'C', "¿Hace falta tomar vitamina D en invierno?"),
    ("compra y genéricos", 'L', "¿Dónde conviene comprar remedios online en Argentina?"),
    ("compra y genéricos", 'L', "¿Qué laboratorios argentinos hacen genéricos confiables?"),
    ("compra y genéricos", 'C', "¿Los genéricos son igual de efectivos que los de marca?"),
];

const PLANTILLAS_EN: &[(&str, char, &str)] = &[
    ("dolor y fiebre", 'L', "What's the Argentine equivalent of Advil or Tylenol?"),
    ("compra y genéricos", 'L', "Which pharmacy chains in Argentina have online ordering?"),
];

const SOBRE: &[(&str, &str, &str)] = &[
    ("dolor y fiebre", "bayer", "¿Es bueno el Actron para el dolor de cabeza?"),
    ("digestivo", "sanofi", "¿La Buscapina sirve para los cólicos?"),
    ("compra y genéricos", "farmacity", "¿Conviene comprar en Farmacity online?"),
];

#[rustfmt::skip]
fn marcas() -> Vec<Marca> {
    #[allow(clippy::too_many_arguments)]
    fn lab(id: &'static str, nombre: &'static str, alias: &'static [&'static str], dominios: &'static [&'static str], peso: f64, foco: &'static [&'static str], neg: f64, pro: &'static [&'static str], contra: &'static [&'static str]) -> Marca {
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
            pro: Textos { es: pro, en: &[] },
            contra: Textos { es: contra, en: &[] },
        }
    }
    let mut v = vec![
        lab(
            "bayer", "Bayer", &["~Bayaspirina", "~Actron", "~Redoxon", "~Supradyn"], &["bayer.com.ar"], 1.0,
            &["dolor y fiebre", "vitaminas", "resfrío y alergia"], 0.12,
            &[
                "es un laboratorio con productos de venta libre muy conocidos",
                "dolor y fiebre|tiene Actron, un ibuprofeno de acción rápida muy difundido",
                "dolor y fiebre|tiene la Bayaspirina, un clásico para el dolor de cabeza en adultos",
                "vitaminas|tiene Supradyn, un multivitamínico muy difundido",
                "resfrío y alergia|tiene Redoxon, vitamina C efervescente",
            ],
            &["niños|la aspirina no se recomienda en chicos", "sus marcas suelen ser más caras que los genéricos"],
        ),
        lab(
            "roemmers", "Roemmers", &["Laboratorios Roemmers", "~Sertal"], &["roemmers.com.ar"], 0.7,
            &["digestivo", "compra y genéricos"], 0.12,
            &["es el laboratorio de mayor facturación del país", "digestivo|tiene Sertal, muy usado para cólicos y dolor abdominal", "tiene una presencia muy amplia en farmacias"],
            &["sus productos suelen costar más que las alternativas genéricas"],
        ),
        lab(
            "bago", "Bagó", &["Laboratorios Bagó"], &["bago.com.ar"], 0.6,
            &["dolor y fiebre", "resfrío y alergia"], 0.1,
            &["es un laboratorio argentino con amplia presencia en farmacias", "dolor y fiebre|tiene analgésicos y antiinflamatorios de uso frecuente", "resfrío y alergia|tiene antialérgicos de venta libre"],
            &["algunas presentaciones son difíciles de conseguir"],
        ),
        lab(
            "elea", "Elea", &["Laboratorio Elea"], &["elea.com"], 0.45,
            &["compra y genéricos", "resfrío y alergia"], 0.1,
            &["es un laboratorio argentino con muchas opciones de venta libre", "compra y genéricos|tiene genéricos de calidad a buen precio"],
            &["no siempre está en todas las farmacias del interior"],
        ),
        lab(
            "gador", "Gador", &["Laboratorios Gador"], &["gador.com.ar"], 0.4,
            &["digestivo"], 0.1,
            &["es un laboratorio argentino con larga trayectoria", "digestivo|tiene productos para la acidez y el reflujo"],
            &["sus productos de venta libre son menos conocidos"],
        ),
        lab(
            "raffo", "Raffo", &["Laboratorios Raffo"], &["raffo.com.ar"], 0.35,
            &["dolor y fiebre", "compra y genéricos"], 0.1,
            &["es un laboratorio argentino conocido por sus analgésicos", "compra y genéricos|ofrece genéricos a precios accesibles"],
            &["tiene menos presencia en publicidad"],
        ),
        lab(
            "casasco", "Casasco", &["Laboratorios Casasco"], &["casasco.com.ar"], 0.3,
            &["vitaminas"], 0.1,
            &["es un laboratorio argentino de trayectoria", "vitaminas|tiene suplementos de magnesio y vitaminas"],
            &["tiene menos variedad de venta libre"],
        ),
        lab(
            "baliarda", "Baliarda", &["Laboratorios Baliarda"], &["baliarda.com.ar"], 0.3,
            &["compra y genéricos"], 0.1,
            &["es un laboratorio nacional con buena relación precio-calidad", "compra y genéricos|tiene genéricos de precio accesible"],
            &["es menos conocido por el público"],
        ),
        lab(
            "sanofi", "Sanofi", &["~Buscapina"], &["sanofi.com.ar"], 0.55,
            &["digestivo", "resfrío y alergia"], 0.12,
            &["es un laboratorio internacional con productos de venta libre muy conocidos", "digestivo|tiene Buscapina, un clásico para los cólicos", "resfrío y alergia|tiene antialérgicos de venta libre"],
            &["digestivo|si el dolor es intenso o persistente no conviene tomar nada sin consulta"],
        ),
        lab(
            "centrum", "Centrum", &[], &["centrum.com"], 0.45,
            &["vitaminas"], 0.12,
            &["vitaminas|es el multivitamínico más conocido", "vitaminas|tiene versiones para mayores de 50", "se consigue en cualquier farmacia"],
            &["no reemplaza una alimentación equilibrada"],
        ),
    ];
    v.push(Marca {
        id: "farmacity",
        nombre: "Farmacity",
        alias: &[],
        excluir: &[],
        dominios: &["farmacity.com"],
        peso: 0.6,
        foco: &["compra y genéricos"],
        debil: &[],
        neg: 0.2,
        pro: Textos {
            es: &["es la cadena de farmacias más grande del país", "compra y genéricos|permite comprar online y retirar en sucursal", "tiene marca propia más económica"],
            en: &["is the largest pharmacy chain in the country", "lets you order online and pick up in store"],
        },
        contra: Textos { es: &["los precios no siempre son los más bajos"], en: &["is not always the cheapest"] },
    });
    v.push(Marca {
        id: "farmaonline",
        nombre: "Farmaonline",
        alias: &[],
        excluir: &[],
        dominios: &["farmaonline.com"],
        peso: 0.3,
        foco: &["compra y genéricos"],
        debil: &[],
        neg: 0.15,
        pro: Textos {
            es: &["compra y genéricos|tiene envíos a domicilio y buenos descuentos online", "vende dermocosmética y medicamentos de venta libre por internet"],
            en: &["delivers to your door with good online discounts"],
        },
        contra: Textos { es: &["los medicamentos con receta requieren validar la receta"], en: &["requires a valid prescription for prescription drugs"] },
    });
    // English arguments for the labs most asked about by expats.
    for m in &mut v {
        match m.id {
            "bayer" => m.pro.en = &["makes Actron (ibuprofen) and Bayaspirina, both sold over the counter"],
            "roemmers" => m.pro.en = &["is the largest laboratory in Argentina"],
            "bago" => m.pro.en = &["is a major Argentine laboratory with common painkillers"],
            "sanofi" => m.pro.en = &["makes Buscapina, a common remedy for cramps"],
            _ => {}
        }
    }
    v
}

pub(crate) fn industria() -> Industria {
    let mut preguntas = cruzar("area_tematica", "grupo", PLANTILLAS, GRUPOS, "es", &[]);
    preguntas.extend(cruzar("area_tematica", "grupo", PLANTILLAS_EN, GRUPOS_EN, "en", &[]));
    preguntas.extend(sobre("area_tematica", "grupo", SOBRE, GRUPOS, "es", &[]));
    Industria {
        slug: "farma-2026",
        nombre: "Medicamentos de venta libre, laboratorios y farmacias 2026",
        nombre_en: "Over-the-counter medicines, laboratories and pharmacies 2026",
        descripcion: "Qué laboratorios, productos de venta libre y farmacias nombran los asistentes de IA ante consultas cotidianas de salud en Argentina (dolor, resfrío, digestivo, vitaminas, genéricos). Cada pregunta se hizo dos veces para medir la estabilidad de las respuestas.",
        descripcion_en: "Which laboratories, over-the-counter products and pharmacies AI assistants name for everyday health questions in Argentina (pain, colds, digestion, vitamins, generics). Every question was asked twice to measure answer stability.",
        industria: "Salud",
        subindustria: "Farmacéutica y farmacias",
        pais: &["Argentina"],
        idiomas: &["es", "en"],
        tags: &["farmacia", "laboratorios", "venta libre", "genéricos", "vitaminas", "estabilidad"],
        inicio: (1, 19),
        dias: 15,
        publicado: "2026-02-24",
        cambio_version: true,
        dimensiones: vec![
            dimension(
                "area_tematica",
                "Área temática",
                "Therapeutic area",
                &["dolor y fiebre", "resfrío y alergia", "digestivo", "vitaminas", "compra y genéricos"],
            ),
            dimension("grupo", "Para quién", "For whom", &["adultos", "niños", "mayores"]),
            dimension("repeticion", "Repetición", "Run", &["1", "2"]),
        ],
        n_preguntas: 180,
        preguntas,
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "farmacity", 1.8),
            ("gpt-5-mini", "bayer", 1.3),
            ("claude-haiku-4-5", "baliarda", 0.0),
        ],
        sin_marca: 0.22,
        debil_factor: 0.2,
        salud: true,
        consejos: Textos {
            es: &[
                "Leé el prospecto y respetá la dosis máxima diaria.",
                "Si los síntomas duran más de tres días, consultá con un médico.",
                "El farmacéutico puede orientarte sobre medicamentos de venta libre.",
                "No combines dos productos con el mismo principio activo.",
                "Verificá que el producto tenga registro de ANMAT.",
                "niños|En chicos, la dosis se calcula por peso: consultá con el pediatra.",
                "niños|No le des aspirina a un chico con fiebre.",
                "mayores|Si toma otros medicamentos, consultá por posibles interacciones.",
                "mayores|En personas mayores, los antiinflamatorios pueden afectar los riñones y la presión.",
                "dolor y fiebre|El ibuprofeno conviene tomarlo con comida para cuidar el estómago.",
                "resfrío y alergia|Los antigripales combinan varios activos: revisá que no dupliques el paracetamol.",
                "digestivo|Ante una diarrea, lo primero es hidratarse bien.",
                "vitaminas|Los suplementos no reemplazan una alimentación variada.",
                "vitaminas|La vitamina D conviene medirla antes de suplementar en dosis altas.",
                "compra y genéricos|Los genéricos aprobados por ANMAT tienen el mismo principio activo que la marca original.",
                "compra y genéricos|Comprá online solo en farmacias habilitadas.",
            ],
            en: &[
                "Read the leaflet and respect the maximum daily dose.",
                "If symptoms last more than three days, see a doctor.",
                "Pharmacists in Argentina can advise on over-the-counter medicines.",
                "Brand names differ by country, so look for the active ingredient.",
            ],
        },
        perfiles: Textos {
            es: &[
                "bayer,bago|buscás una marca conocida de venta libre",
                "elea,raffo,baliarda|preferís un genérico más económico",
                "farmacity,farmaonline|querés comprar online",
                "centrum,casasco|buscás un suplemento",
                "sanofi,roemmers|tenés cólicos o dolor abdominal",
                "gador|tenés acidez frecuente",
            ],
            en: &["bayer,bago|you want a well-known brand", "farmacity,farmaonline|you want to order online"],
        },
        medios: vec![
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/salud/{fecha}/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/buena-vida/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/salud/", idioma: "es" },
            Medio { host: "www.anmat.gob.ar", nombre: "ANMAT", ruta: "/medicamentos/", idioma: "es" },
            Medio { host: "www.argentina.gob.ar", nombre: "Argentina.gob.ar", ruta: "/salud/", idioma: "es" },
            Medio { host: "medlineplus.gov", nombre: "MedlinePlus", ruta: "/spanish/druginfo/", idioma: "es" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/argentina/comments/", idioma: "es" },
            Medio { host: "www.drugs.com", nombre: "Drugs.com", ruta: "/international/", idioma: "en" },
            Medio { host: "www.nhs.uk", nombre: "NHS", ruta: "/medicines/", idioma: "en" },
        ],
        titulos: Textos {
            es: &[
                "dolor y fiebre|Ibuprofeno o paracetamol: cuál conviene según el síntoma",
                "resfrío y alergia|Antigripales: qué contienen y cómo tomarlos",
                "compra y genéricos|Medicamentos genéricos: qué son y por qué cuestan menos",
                "vitaminas|Vitamina D en invierno: quiénes la necesitan",
                "digestivo|Acidez: cuándo preocuparse",
                "compra y genéricos|Comprar remedios online: qué hay que saber",
                "Automedicación: los riesgos más comunes",
            ],
            en: &[
                "Ibuprofen vs paracetamol",
                "Buying medicines abroad: brand names by country",
                "Over-the-counter allergy medicines",
            ],
        },
        paginas: &[
            ("/productos/venta-libre", "Productos de venta libre | {marca}", "Over-the-counter products | {marca}"),
            ("/nosotros", "Quiénes somos | {marca}", "About us | {marca}"),
            ("/salud/consejos", "Consejos de salud | {marca}", "Health tips | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_TODAS),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorDimension(Metric::Mencion, "area_tematica"),
            Tabla::PorDimension(Metric::Mencion, "repeticion"),
            Tabla::ModeloDimension(Metric::Protagonismo, "repeticion", "bayer"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("grupo")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(12),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan cinco áreas temáticas con el destinatario del medicamento, y cada una se hizo dos veces (dimensión repetición: 1 y 2) al mismo modelo, para medir cuánto cambian las marcas nombradas de una corrida a otra.",
        con_hallazgos: true,
    }
}
