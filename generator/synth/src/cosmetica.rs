//! Cosmetics and personal care in Argentina.
//!
//! A Spanish-only study where global mass brands, dermocosmetics and local labels
//! (Lidherma, Dermaglós, Caviahue, Plusbelle) compete. Questions cross the product category
//! with who is asking (teenagers, adults, over fifties, men).

use generator::model::Metric;

use super::comun::{METRICAS_BASE, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, comparar, cruzar, marca_es, sobre};

const SEGMENTOS: &[(&str, &[&str])] = &[
    (
        "adolescentes",
        &["Tengo 16 años y la piel grasa con granitos.", "Mi hija de 15 quiere empezar a usar productos."],
    ),
    ("adultas", &["Tengo 34 años y piel mixta.", "Tengo 41 años y la piel bastante seca."]),
    ("mayores de 50", &["Tengo 58 años y noto la piel más fina.", "Mi mamá tiene 66 y busca algo suave."]),
    ("hombres", &["Soy hombre, tengo 30 años y nunca usé nada.", "Tengo 45 años y quiero empezar a cuidarme."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("cuidado facial", 'L', "¿Qué crema hidratante de farmacia me recomiendan?"),
    ("cuidado facial", 'L', "¿Qué sérum recomiendan que se consiga en Argentina?"),
    ("cuidado facial", 'L', "¿Qué marca tiene una buena rutina de limpieza facial sin gastar mucho?"),
    ("cuidado facial", 'L', "¿Qué crema de noche recomiendan?"),
    ("cuidado facial", 'C', "¿En qué orden se aplican los productos de una rutina facial?"),
    ("maquillaje", 'L', "¿Qué base de maquillaje dura todo el día y se consigue en Argentina?"),
    ("maquillaje", 'L', "¿Qué máscara de pestañas recomiendan?"),
    ("maquillaje", 'L', "¿Qué labial de larga duración recomiendan?"),
    ("maquillaje", 'C', "¿Cómo elijo el tono de base correcto?"),
    ("protección solar", 'L', "¿Qué protector solar recomiendan para usar todos los días?"),
    ("protección solar", 'L', "¿Qué protector solar no deja la cara blanca?"),
    ("protección solar", 'L', "¿Qué protector solar con color recomiendan?"),
    ("protección solar", 'C', "¿Cada cuánto hay que renovar el protector solar en la playa?"),
    ("cuidado capilar", 'L', "¿Qué shampoo recomiendan para el pelo graso?"),
    ("cuidado capilar", 'L', "¿Qué tratamiento capilar funciona para el frizz?"),
    ("cuidado capilar", 'L', "¿Qué acondicionador recomiendan para el pelo seco?"),
    ("cuidado capilar", 'C', "¿Cómo cuido el pelo teñido en verano?"),
];

const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("protección solar", "isdin", "Isdin", "dermaglos", "Dermaglós", "¿Qué protector es mejor, {a_o_b}?"),
    ("cuidado facial", "nivea", "Nivea", "natura", "Natura", "Para hidratarme la cara, ¿conviene {a_o_b}?"),
    ("maquillaje", "maybelline", "Maybelline", "loreal", "L'Oréal", "¿Qué base es mejor, la de {a} o la de {b}?"),
    ("cuidado facial", "vichy", "Vichy", "lidherma", "Lidherma", "¿Qué sérum conviene más, {a_o_b}?"),
];

const SOBRE: &[(&str, &str, &str)] = &[
    ("cuidado facial", "caviahue", "¿Son buenas las cremas de Caviahue?"),
    ("maquillaje", "avon", "¿Vale la pena el maquillaje de Avon?"),
    ("protección solar", "dermaglos", "¿Es bueno el protector solar de Dermaglós?"),
];

#[rustfmt::skip]
fn marcas() -> Vec<Marca> {
    let m = marca_es;
    let mut v = vec![
        m(
            "loreal", "L'Oréal Paris", &["L'Oréal", "Loreal"], &[], &["loreal-paris.com.ar"], 1.0,
            &["maquillaje", "cuidado facial", "cuidado capilar"], 0.15,
            &[
                "tiene una línea muy amplia que se consigue en cualquier farmacia o supermercado",
                "cuidado facial|tiene el sérum Revitalift con ácido hialurónico, muy bien valorado",
                "maquillaje|tiene la base Infalible, que dura muchas horas",
                "cuidado capilar|tiene la línea Elvive con opciones para cada tipo de pelo",
                "mayores de 50|tiene líneas antiedad pensadas para piel madura",
            ],
            &["algunos productos tienen fragancia intensa", "los precios subieron bastante"],
        ),
        m(
            "nivea", "Nivea", &["~NIVEA Men"], &[], &["nivea.com.ar"], 0.9,
            &["cuidado facial", "hombres"], 0.1,
            &[
                "es una marca confiable y accesible",
                "cuidado facial|tiene cremas hidratantes simples que funcionan bien",
                "hombres|tiene la línea Men, pensada para piel masculina",
                "protección solar|tiene protectores solares familiares a buen precio",
            ],
            &["algunas cremas pueden resultar pesadas para piel grasa"],
        ),
        m(
            "natura", "Natura", &["Natura Cosméticos"], &["contra natura"], &["natura.com.ar"], 0.8,
            &["cuidado facial", "cuidado capilar"], 0.15,
            &[
                "usa ingredientes de origen vegetal y es una marca cruelty free",
                "cuidado facial|tiene la línea Chronos para el cuidado antiedad",
                "cuidado capilar|tiene la línea Lumina para distintos tipos de pelo",
                "se compra a través de consultoras o en su tienda online",
            ],
            &["no siempre se consigue en farmacias", "algunos productos son caros para lo que rinden"],
        ),
        m(
            "avon", "Avon", &[], &[], &["avon.com.ar"], 0.5,
            &["maquillaje"], 0.2,
            &["tiene precios accesibles y promociones por catálogo", "maquillaje|tiene labiales y máscaras con muy buena relación precio-calidad"],
            &["la calidad es despareja entre productos"],
        ),
        m(
            "dove", "Dove", &[], &[], &["dove.com"], 0.6,
            &["cuidado capilar"], 0.1,
            &["es suave y apta para uso diario", "cuidado capilar|tiene shampoos y acondicionadores que no resecan", "cuidado facial|tiene jabones de limpieza suaves con crema humectante"],
            &["no tiene tratamientos específicos para problemas puntuales"],
        ),
        m(
            "maybelline", "Maybelline", &["Maybelline New York"], &[], &["maybelline.com.ar"], 0.6,
            &["maquillaje"], 0.15,
            &["maquillaje|tiene máscaras de pestañas muy populares como Lash Sensational", "maquillaje|tiene la base Fit Me con muchos tonos", "se consigue fácil en perfumerías y farmacias"],
            &["algunos productos no son tan resistentes al agua"],
        ),
        m(
            "lidherma", "Lidherma", &[], &[], &["lidherma.com"], 0.4,
            &["cuidado facial"], 0.1,
            &["es una marca argentina con formulaciones profesionales", "cuidado facial|tiene sérums con vitamina C y ácido hialurónico a buen precio"],
            &["no siempre está en todas las farmacias"],
        ),
        m(
            "isdin", "Isdin", &["~Isdin Fusion Water"], &[], &["isdin.com"], 0.7,
            &["protección solar"], 0.12,
            &["protección solar|tiene el Fusion Water, un protector de textura muy liviana", "protección solar|es de las marcas que más recomiendan los dermatólogos para el sol", "cuidado facial|tiene productos para pieles sensibles"],
            &["es de las opciones más caras de farmacia"],
        ),
        m(
            "dermaglos", "Dermaglós", &[], &[], &["dermaglos.com"], 0.6,
            &["protección solar"], 0.1,
            &["protección solar|tiene protectores solares con buena relación precio-calidad", "es una marca argentina muy presente en farmacias", "protección solar|tiene versiones para chicos y para piel sensible"],
            &["algunos protectores dejan un poco de brillo"],
        ),
        m(
            "neutrogena", "Neutrogena", &[], &[], &["neutrogena.com.ar"], 0.45,
            &["cuidado facial", "adolescentes"], 0.15,
            &["cuidado facial|tiene geles de limpieza para piel grasa", "adolescentes|tiene productos para piel con tendencia acneica", "protección solar|tiene protectores de textura seca"],
            &["algunos productos resecan si se usan mucho"],
        ),
        m(
            "vichy", "Vichy", &["Vichy Laboratoires"], &[], &["vichy.com.ar"], 0.45,
            &["cuidado facial", "mayores de 50"], 0.12,
            &["cuidado facial|tiene el sérum Minéral 89, muy recomendado", "es una marca dermocosmética de farmacia", "mayores de 50|tiene la línea Liftactiv para piel madura"],
            &["su precio es alto"],
        ),
        m(
            "garnier", "Garnier", &["~Garnier Fructis"], &[], &["garnier.com.ar"], 0.5,
            &["cuidado capilar"], 0.15,
            &["tiene precios accesibles en supermercados", "cuidado capilar|tiene la línea Fructis con muchas variantes", "cuidado facial|tiene agua micelar muy práctica para desmaquillar"],
            &["algunos productos tienen perfume fuerte"],
        ),
        m(
            "caviahue", "Caviahue", &[], &["termas de Caviahue"], &["caviahue.com"], 0.25,
            &["cuidado facial"], 0.12,
            &["elabora cosmética termal en la Patagonia", "cuidado facial|tiene cremas con agua termal que calman la piel sensible"],
            &["se consigue en menos puntos de venta"],
        ),
        m(
            "plusbelle", "Plusbelle", &[], &[], &["plusbelle.com.ar"], 0.3,
            &["cuidado capilar"], 0.15,
            &["es una marca argentina clásica y económica", "cuidado capilar|tiene shampoos y cremas de enjuague a muy buen precio"],
            &["sus fórmulas son más básicas"],
        ),
    ];
    // Categories where a brand has little or nothing to offer.
    for m in &mut v {
        m.debil = match m.id {
            "plusbelle" => &["protección solar", "maquillaje", "cuidado facial"],
            "dove" | "garnier" => &["maquillaje"],
            "maybelline" | "avon" => &["cuidado capilar", "protección solar"],
            "isdin" | "dermaglos" | "lidherma" | "vichy" | "neutrogena" | "caviahue" => &["maquillaje", "cuidado capilar"],
            _ => &[],
        };
    }
    v
}

pub(crate) fn industria() -> Industria {
    let mut preguntas = cruzar("producto", "segmento", PLANTILLAS, SEGMENTOS, "es", &[]);
    preguntas.extend(comparar("producto", "segmento", PARES, SEGMENTOS, "es", &[]));
    preguntas.extend(sobre("producto", "segmento", SOBRE, SEGMENTOS, "es", &[]));
    Industria {
        slug: "cosmetica-2026",
        nombre: "Cosmética y cuidado personal en Argentina 2026",
        nombre_en: "Cosmetics and personal care in Argentina 2026",
        descripcion: "Qué marcas de cuidado facial, maquillaje, protección solar y cuidado capilar recomiendan los asistentes de IA a consumidoras y consumidores argentinos, según edad y género.",
        descripcion_en: "Which skincare, make-up, sun care and hair care brands AI assistants recommend to Argentine consumers, by age and gender.",
        industria: "Consumo masivo",
        subindustria: "Cosmética y cuidado personal",
        pais: &["Argentina"],
        idiomas: &["es"],
        tags: &[
            "cosmética",
            "cuidado de la piel",
            "maquillaje",
            "protector solar",
            "cuidado capilar",
            "dermocosmética",
        ],
        inicio: (1, 12),
        dias: 10,
        publicado: "2026-02-16",
        cambio_version: false,
        dimensiones: vec![
            dimension(
                "producto",
                "Categoría",
                "Category",
                &["cuidado facial", "maquillaje", "protección solar", "cuidado capilar"],
            ),
            dimension("segmento", "Segmento", "Segment", &["adolescentes", "adultas", "mayores de 50", "hombres"]),
        ],
        n_preguntas: 160,
        preguntas,
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "natura", 1.9),
            ("gemini-2.5-flash", "natura", 1.3),
            ("gpt-5", "isdin", 1.4),
            ("claude-haiku-4-5", "caviahue", 0.0),
        ],
        sin_marca: 0.14,
        debil_factor: 0.2,
        salud: false,
        consejos: Textos {
            es: &[
                "Probá cualquier producto nuevo primero en una zona chica de la piel.",
                "Más que la marca, importa que la textura sea adecuada para tu tipo de piel.",
                "Revisá que el producto tenga registro de ANMAT.",
                "No hace falta gastar mucho: una rutina simple y constante rinde más que muchos productos.",
                "Si tenés acné o una piel muy reactiva, lo ideal es consultar con un dermatólogo.",
                "cuidado facial|La rutina básica es limpieza, hidratación y protector solar de día.",
                "cuidado facial|Los activos como retinol y ácidos se usan de noche y con protector solar al día siguiente.",
                "protección solar|Usá factor 30 o más todos los días, aunque esté nublado.",
                "protección solar|Renová el protector cada dos horas y después de meterte al agua.",
                "protección solar|Evitá el sol directo entre las 11 y las 16.",
                "maquillaje|Probá el tono de base en la mandíbula y con luz natural.",
                "maquillaje|Desmaquillate siempre antes de dormir.",
                "cuidado capilar|Alterná el shampoo según cómo tengas el cuero cabelludo, no el largo del pelo.",
                "cuidado capilar|El cloro y el sol resecan: usá acondicionador y protector térmico.",
                "adolescentes|En la adolescencia conviene elegir productos oil free y no comedogénicos.",
                "hombres|Un gel de limpieza y una crema liviana alcanzan para empezar.",
            ],
            en: &[],
        },
        perfiles: Textos {
            es: &[
                "loreal,garnier,nivea|buscás algo que se consiga en el supermercado",
                "isdin,vichy,lidherma|querés una marca de farmacia con respaldo dermatológico",
                "natura,caviahue|preferís ingredientes naturales",
                "avon,plusbelle,garnier|querés gastar poco",
                "maybelline,loreal|priorizás la duración del maquillaje",
                "neutrogena|tenés la piel grasa",
                "dermaglos,lidherma,plusbelle|preferís marcas argentinas",
                "dove,nivea|tenés la piel sensible y querés algo suave",
            ],
            en: &[],
        },
        medios: vec![
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/tendencias/{fecha}/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/buena-vida/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/lifestyle/", idioma: "es" },
            Medio { host: "www.pagina12.com.ar", nombre: "Página|12", ruta: "/", idioma: "es" },
            Medio { host: "www.farmacity.com", nombre: "Farmacity", ruta: "/blog/", idioma: "es" },
            Medio {
                host: "www.sad.org.ar",
                nombre: "Sociedad Argentina de Dermatología",
                ruta: "/comunidad/",
                idioma: "es",
            },
            Medio { host: "www.anmat.gob.ar", nombre: "ANMAT", ruta: "/cosmeticos/", idioma: "es" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/argentina/comments/", idioma: "es" },
        ],
        titulos: Textos {
            es: &[
                "protección solar|Los mejores protectores solares de farmacia, según dermatólogos",
                "cuidado facial|Rutina de skincare en tres pasos: qué usar y en qué orden",
                "Cremas hidratantes: cuáles recomiendan los especialistas",
                "maquillaje|Maquillaje de larga duración: las bases que resisten el calor",
                "cuidado capilar|Shampoos para pelo graso: cómo elegir",
                "cuidado facial|Sérums con vitamina C: guía de compra",
                "mayores de 50|Cuidado de la piel después de los 50",
                "hombres|Skincare para hombres: por dónde empezar",
            ],
            en: &[],
        },
        paginas: &[
            ("/productos/cuidado-facial", "Cuidado facial | {marca}", "Skincare | {marca}"),
            ("/productos/proteccion-solar", "Protección solar | {marca}", "Sun care | {marca}"),
            ("/productos/maquillaje", "Maquillaje | {marca}", "Make-up | {marca}"),
            ("/consejos", "Consejos de belleza | {marca}", "Beauty tips | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_BASE),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorDimension(Metric::Protagonismo, "producto"),
            Tabla::PorDimension(Metric::Mencion, "segmento"),
            Tabla::ModeloDimension(Metric::Mencion, "segmento", "natura"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("producto")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(10),
        ],
        ponderacion: None,
        metodo_extra: "Las preguntas cruzan cuatro categorías de producto con cuatro segmentos de consumidores; todas se formulan en español rioplatense.",
        con_hallazgos: true,
    }
}
