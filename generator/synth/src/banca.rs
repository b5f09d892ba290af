//! Banking in Argentina: traditional banks, digital banks and wallets.
//!
//! The one study weighted by the models' market shares, so its tables show what a typical
//! Argentine user would actually see. Questions cross banking products with customer
//! segments, in Spanish and English (expats and foreign workers ask too).

use std::collections::BTreeMap;

use generator::model::{Metric, Weighting};

use super::comun::{METRICAS_BASE, Tabla, dimension};
use super::engine::{Industria, Marca, Medio, Textos, comparar, cruzar, sobre};

const SEGMENTOS: &[(&str, &[&str])] = &[
    (
        "jóvenes",
        &[
            "Tengo 23 años y estoy por cobrar mi primer sueldo.",
            "Soy estudiante universitario y trabajo medio tiempo.",
            "Tengo 26 años y quiero ordenar mis finanzas.",
        ],
    ),
    (
        "familias",
        &[
            "Somos una familia con dos hijos y queremos ordenar los gastos de la casa.",
            "Con mi pareja queremos unificar las cuentas del hogar.",
        ],
    ),
    (
        "jubilados",
        &["Soy jubilado y cobro la jubilación por ANSES.", "Soy jubilada y quiero manejarme más desde el celular."],
    ),
    (
        "pymes",
        &[
            "Tengo una pyme de servicios con cinco empleados.",
            "Soy monotributista y facturo como profesional independiente.",
        ],
    ),
];

const SEGMENTOS_EN: &[(&str, &[&str])] = &[
    ("jóvenes", &["I'm 24 and just moved to Buenos Aires for my first job."]),
    ("familias", &["We're a family of four relocating to Argentina for work."]),
    ("jubilados", &["I'm a retiree and spend half of the year in Argentina."]),
    ("pymes", &["I run a small consulting business in Argentina."]),
];

const PLANTILLAS: &[(&str, char, &str)] = &[
    ("cuentas", 'L', "¿Qué banco me conviene para abrir una cuenta sin costo de mantenimiento?"),
    ("cuentas", 'L', "¿Qué banco tiene la mejor app para hacer todo online?"),
    ("cuentas", 'L', "¿Dónde me conviene cobrar el sueldo o los ingresos del mes?"),
    ("cuentas", 'C', "¿Cómo abro una cuenta bancaria sin ir a una sucursal?"),
    ("tarjetas", 'L', "¿Qué tarjeta de crédito tiene más beneficios y descuentos en supermercados?"),
    ("tarjetas", 'L', "¿Qué banco da la tarjeta de crédito más fácil de conseguir?"),
    ("tarjetas", 'C', "¿Cómo hago para bajar lo que pago de mantenimiento de la tarjeta?"),
    ("créditos", 'L', "¿Qué banco tiene hoy la tasa más baja para un préstamo personal?"),
    ("créditos", 'L', "¿Dónde conviene sacar un crédito hipotecario en Argentina?"),
    ("créditos", 'C', "¿Qué tengo que mirar antes de pedir un préstamo personal?"),
    ("inversiones", 'L', "¿Dónde rinde más un plazo fijo en este momento?"),
    ("inversiones", 'L', "¿Qué banco o app recomiendan para empezar a invertir con poca plata?"),
    ("inversiones", 'C', "¿Conviene más un plazo fijo o un fondo money market para los ahorros?"),
    ("billeteras", 'L', "¿Qué billetera virtual conviene para pagar con QR y transferir?"),
    ("billeteras", 'L', "¿Cuál es la cuenta remunerada que más paga hoy?"),
    ("billeteras", 'C', "¿Es seguro dejar la plata en una billetera virtual?"),
];

const PLANTILLAS_EN: &[(&str, char, &str)] = &[
    ("cuentas", 'L', "Which bank in Argentina is easiest to open an account with as a foreigner?"),
    ("cuentas", 'L', "What's the best digital bank in Argentina right now?"),
    ("tarjetas", 'L', "Which Argentine credit card has the best perks?"),
    ("créditos", 'L', "Where can I get a personal loan in Argentina with the lowest rate?"),
    ("inversiones", 'L', "Which bank or app in Argentina is best to earn interest on pesos?"),
    ("billeteras", 'L', "What's the most convenient payment app to use day to day in Argentina?"),
];

const PARES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("cuentas", "brubank", "Brubank", "uala", "Ualá", "¿Qué conviene más para cobrar el sueldo, {a_o_b}?"),
    ("tarjetas", "galicia", "Galicia", "santander", "Santander", "¿Qué tarjeta conviene más, la de {a} o la de {b}?"),
    ("billeteras", "mercadopago", "Mercado Pago", "naranjax", "Naranja X", "¿Qué billetera es mejor, {a_o_b}?"),
    ("créditos", "bna", "Banco Nación", "provincia", "Banco Provincia", "Para un préstamo, ¿conviene {a_o_b}?"),
    ("inversiones", "bbva", "BBVA", "galicia", "Galicia", "Para invertir desde la app, ¿es mejor {a_o_b}?"),
];

const SOBRE: &[(&str, &str, &str)] = &[
    ("cuentas", "brubank", "¿Es confiable Brubank para cobrar el sueldo?"),
    ("billeteras", "mercadopago", "¿Es seguro dejar los ahorros en Mercado Pago?"),
    ("créditos", "bna", "¿Conviene sacar un préstamo personal en el Banco Nación?"),
    ("tarjetas", "naranjax", "¿Vale la pena la tarjeta de Naranja X?"),
];

fn marcas() -> Vec<Marca> {
    vec![
        Marca {
            id: "galicia",
            nombre: "Banco Galicia",
            alias: &["Galicia"],
            excluir: &[],
            dominios: &["galicia.ar", "bancogalicia.com"],
            peso: 1.0,
            foco: &["tarjetas", "pymes", "inversiones"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene una de las apps más completas del mercado",
                    "cuenta con una red amplia de sucursales y cajeros",
                    "tarjetas|ofrece muchos descuentos en supermercados y combustible con sus tarjetas",
                    "tarjetas|tiene un programa de puntos que se puede canjear por viajes",
                    "cuentas|bonifica el paquete completo si cobrás el sueldo ahí",
                    "inversiones|permite invertir en plazo fijo y fondos desde la misma app",
                    "pymes|tiene una oferta completa para pymes, con cuenta corriente y descuento de cheques",
                    "créditos|ofrece préstamos preaprobados a clientes con sueldo acreditado",
                ],
                en: &[
                    "has one of the most complete banking apps in the country",
                    "tarjetas|offers strong card perks and discounts",
                    "inversiones|lets you invest in deposits and funds from the same app",
                    "créditos|offers pre-approved loans to salaried customers",
                ],
            },
            contra: Textos {
                es: &[
                    "cobra mantenimiento alto si no tenés el sueldo acreditado",
                    "la atención telefónica suele tener demoras",
                ],
                en: &["charges high monthly fees unless your salary is paid there"],
            },
        },
        Marca {
            id: "santander",
            nombre: "Banco Santander",
            alias: &["Santander", "Santander Argentina"],
            excluir: &[],
            dominios: &["santander.com.ar"],
            peso: 0.8,
            foco: &["tarjetas", "familias", "créditos"],
            debil: &[],
            neg: 0.2,
            pro: Textos {
                es: &[
                    "tiene buena presencia en todo el país",
                    "tarjetas|tiene promociones fuertes en supermercados y viajes",
                    "tarjetas|suma millas con las compras con tarjeta",
                    "cuentas|ofrece paquetes con buenas bonificaciones para quien cobra el sueldo",
                    "créditos|tiene préstamos personales con aprobación online",
                    "familias|tiene paquetes con tarjetas adicionales para toda la familia",
                    "pymes|ofrece cuentas para empresas con acreditación de haberes",
                ],
                en: &[
                    "has a strong nationwide presence",
                    "tarjetas|has strong supermarket and travel promotions",
                    "cuentas|offers good bundles for salaried customers",
                ],
            },
            contra: Textos {
                es: &[
                    "sus comisiones son de las más altas si no tenés bonificación",
                    "algunos usuarios se quejan de la app",
                ],
                en: &["has some of the highest fees without a bundle discount"],
            },
        },
        Marca {
            id: "bbva",
            nombre: "BBVA Argentina",
            alias: &["BBVA", "BBVA Francés", "Francés"],
            excluir: &["idioma francés", "en francés", "pan francés"],
            dominios: &["bbva.com.ar"],
            peso: 0.75,
            foco: &["inversiones", "créditos"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene una app muy bien valorada y fácil de usar",
                    "inversiones|ofrece plazo fijo online y fondos comunes con pocos pasos",
                    "créditos|suele tener buenas condiciones en préstamos para clientes con sueldo",
                    "créditos|tiene una línea hipotecaria en UVA con trámite online",
                    "tarjetas|tiene un buen programa de puntos",
                    "cuentas|permite abrir la cuenta desde la app con validación de identidad",
                ],
                en: &[
                    "has a highly rated, easy-to-use app",
                    "inversiones|makes online term deposits and mutual funds easy",
                    "créditos|usually offers good loan terms to salaried customers",
                ],
            },
            contra: Textos {
                es: &["el paquete completo tiene un costo mensual considerable", "las promociones cambian seguido"],
                en: &["has a considerable monthly fee for the full bundle"],
            },
        },
        Marca {
            id: "bna",
            nombre: "Banco Nación",
            alias: &["BNA", "Banco de la Nación Argentina"],
            excluir: &[],
            dominios: &["bna.com.ar"],
            peso: 0.55,
            foco: &["créditos", "jubilados"],
            debil: &["billeteras"],
            neg: 0.25,
            pro: Textos {
                es: &[
                    "tiene presencia en localidades donde no llegan otros bancos",
                    "créditos|suele tener las tasas más bajas en créditos hipotecarios",
                    "créditos|ofrece líneas de préstamos con tasas competitivas para clientes con sueldo",
                    "jubilados|paga jubilaciones en todo el país y tiene atención prioritaria para mayores",
                    "cuentas|permite operar con la app BNA+ sin costo",
                    "inversiones|ofrece plazo fijo con tasas que suelen estar entre las más altas de los bancos grandes",
                ],
                en: &[
                    "has branches in towns other banks don't reach",
                    "créditos|usually has the lowest mortgage rates",
                ],
            },
            contra: Textos {
                es: &["la atención en sucursal puede ser lenta", "los trámites suelen ser más burocráticos"],
                en: &["can be slow and bureaucratic at the branch"],
            },
        },
        Marca {
            id: "macro",
            nombre: "Banco Macro",
            alias: &["Macro"],
            excluir: &[],
            dominios: &["macro.com.ar"],
            peso: 0.4,
            foco: &["jubilados"],
            debil: &[],
            neg: 0.2,
            pro: Textos {
                es: &[
                    "tiene mucha presencia en el interior del país",
                    "tiene una red grande de cajeros",
                    "jubilados|ofrece beneficios específicos para jubilados",
                    "créditos|tiene préstamos para jubilados con descuento directo de haberes",
                ],
                en: &["is strong outside Buenos Aires", "jubilados|has specific benefits for retirees"],
            },
            contra: Textos {
                es: &["su app está un paso atrás de la de los bancos digitales"],
                en: &["has an app a step behind the digital banks"],
            },
        },
        Marca {
            id: "provincia",
            nombre: "Banco Provincia",
            alias: &["BAPRO", "Banco de la Provincia de Buenos Aires"],
            excluir: &[],
            dominios: &["bancoprovincia.com.ar"],
            peso: 0.35,
            foco: &["créditos", "jubilados"],
            debil: &["billeteras"],
            neg: 0.2,
            pro: Textos {
                es: &[
                    "tiene muchas sucursales en el conurbano",
                    "tiene descuentos fuertes con Cuenta DNI en comercios de barrio",
                    "créditos|ofrece créditos con tasas competitivas en la provincia de Buenos Aires",
                    "jubilados|tiene descuentos para jubilados en farmacias y comercios",
                ],
                en: &[
                    "has good discounts through its Cuenta DNI app",
                    "créditos|offers competitive loans in Buenos Aires province",
                ],
            },
            contra: Textos {
                es: &["sus beneficios se concentran en la provincia de Buenos Aires"],
                en: &["mostly benefits residents of Buenos Aires province"],
            },
        },
        Marca {
            id: "brubank",
            nombre: "Brubank",
            alias: &[],
            excluir: &[],
            dominios: &["brubank.com"],
            peso: 0.6,
            foco: &["cuentas", "jóvenes"],
            debil: &["créditos"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "tiene una app simple y rápida",
                    "cuentas|es un banco 100 % digital sin costo de mantenimiento",
                    "cuentas|permite abrir la cuenta en minutos desde el celular",
                    "inversiones|suele pagar buenas tasas en plazo fijo",
                    "tarjetas|da una tarjeta de débito internacional sin costo",
                ],
                en: &[
                    "has a simple, fast app",
                    "cuentas|is a fully digital bank with no monthly fees",
                    "cuentas|lets you open an account in minutes from your phone",
                ],
            },
            contra: Textos {
                es: &["no tiene sucursales para hacer trámites en persona"],
                en: &["has no branches for in-person help"],
            },
        },
        Marca {
            id: "uala",
            nombre: "Ualá",
            alias: &["Uala"],
            excluir: &[],
            dominios: &["uala.com.ar"],
            peso: 0.6,
            foco: &["billeteras", "jóvenes", "cuentas"],
            debil: &["créditos"],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "es muy fácil de usar para quien empieza",
                    "billeteras|tiene cuenta remunerada con rendimiento diario",
                    "tarjetas|ofrece tarjeta prepaga internacional sin costo",
                    "inversiones|permite invertir desde montos muy chicos",
                    "cuentas|se abre en minutos con el DNI y sin costo",
                ],
                en: &[
                    "is very easy to use for beginners",
                    "billeteras|has an interest-bearing account that pays daily",
                    "tarjetas|offers a free international prepaid card",
                ],
            },
            contra: Textos {
                es: &["tiene límites más bajos que un banco tradicional", "la atención es solo por chat"],
                en: &["has lower limits than a traditional bank"],
            },
        },
        Marca {
            id: "mercadopago",
            nombre: "Mercado Pago",
            alias: &["MercadoPago"],
            excluir: &[],
            dominios: &["mercadopago.com.ar"],
            peso: 0.9,
            foco: &["billeteras", "cuentas", "jóvenes", "pymes"],
            debil: &["créditos"],
            neg: 0.2,
            pro: Textos {
                es: &[
                    "integra compras, pagos de servicios y transferencias en una sola app",
                    "billeteras|es la billetera más aceptada para pagar con QR",
                    "billeteras|paga rendimiento diario sobre el saldo",
                    "inversiones|paga rendimiento diario sobre el saldo",
                    "pymes|permite cobrar ventas con link de pago y posnet",
                    "cuentas|tiene CVU gratis y transferencias inmediatas",
                    "tarjetas|ofrece una tarjeta de crédito sin costo de emisión",
                ],
                en: &[
                    "brings payments, transfers and bills together in one app",
                    "billeteras|is the most widely accepted wallet for QR payments",
                    "inversiones|pays daily interest on your balance",
                ],
            },
            contra: Textos {
                es: &[
                    "los préstamos que ofrece tienen tasas altas",
                    "el rendimiento bajó bastante en los últimos meses",
                ],
                en: &["offers loans at high rates"],
            },
        },
        Marca {
            id: "naranjax",
            nombre: "Naranja X",
            alias: &["Naranja", "Tarjeta Naranja"],
            excluir: &["jugo de naranja", "color naranja"],
            dominios: &["naranjax.com"],
            peso: 0.35,
            foco: &["tarjetas", "billeteras", "familias"],
            debil: &["inversiones"],
            neg: 0.25,
            pro: Textos {
                es: &[
                    "ofrece cuenta remunerada y tarjeta en la misma app",
                    "tarjetas|tiene el plan Z para pagar en cuotas",
                    "tarjetas|es fácil de conseguir aunque no tengas historial bancario",
                    "familias|tiene promociones en cuotas en comercios de todo el país",
                ],
                en: &[
                    "offers a card and a savings account in the same app",
                    "tarjetas|makes it easy to get a card without credit history",
                ],
            },
            contra: Textos {
                es: &[
                    "los intereses por financiar el saldo son altos",
                    "cobra cargos que conviene revisar en el resumen",
                ],
                en: &["charges high interest on revolving balances"],
            },
        },
        Marca {
            id: "icbc",
            nombre: "ICBC Argentina",
            alias: &["ICBC"],
            excluir: &[],
            dominios: &["icbc.com.ar"],
            peso: 0.3,
            foco: &["inversiones", "pymes"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "ofrece paquetes premium con atención personalizada",
                    "pymes|tiene buena oferta de comercio exterior para empresas",
                    "inversiones|tiene una plataforma de inversiones completa",
                ],
                en: &[
                    "offers premium bundles with personal service",
                    "pymes|has a good offering for businesses that import or export",
                ],
            },
            contra: Textos {
                es: &["sus paquetes son caros para un usuario promedio"],
                en: &["has expensive bundles for an average user"],
            },
        },
        Marca {
            id: "ciudad",
            nombre: "Banco Ciudad",
            alias: &["Banco de la Ciudad de Buenos Aires"],
            excluir: &[],
            dominios: &["bancociudad.com.ar"],
            peso: 0.3,
            foco: &["créditos"],
            debil: &["billeteras"],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "es un banco público con buena atención en CABA",
                    "créditos|ofrece créditos hipotecarios con condiciones competitivas",
                ],
                en: &["is a public bank with good service in the city", "créditos|offers competitive mortgage terms"],
            },
            contra: Textos {
                es: &["tiene pocas sucursales fuera de CABA"],
                en: &["has few branches outside the city"],
            },
        },
        Marca {
            id: "credicoop",
            nombre: "Banco Credicoop",
            alias: &["Credicoop"],
            excluir: &[],
            dominios: &["bancocredicoop.coop"],
            peso: 0.25,
            foco: &["pymes"],
            debil: &["billeteras", "jóvenes"],
            neg: 0.1,
            pro: Textos {
                es: &[
                    "es un banco cooperativo con trato cercano",
                    "pymes|tiene una larga trayectoria acompañando a pymes",
                    "pymes|cobra comisiones razonables a empresas chicas",
                ],
                en: &[
                    "is a cooperative bank with a personal touch",
                    "pymes|has a long track record with small businesses",
                ],
            },
            contra: Textos {
                es: &["su banca digital es más básica"],
                en: &["has a more basic digital banking experience"],
            },
        },
        Marca {
            id: "supervielle",
            nombre: "Supervielle",
            alias: &["Banco Supervielle"],
            excluir: &[],
            dominios: &["supervielle.com.ar"],
            peso: 0.25,
            foco: &["jubilados"],
            debil: &[],
            neg: 0.15,
            pro: Textos {
                es: &[
                    "tiene una app correcta y promociones frecuentes",
                    "jubilados|tiene beneficios pensados para jubilados",
                    "jubilados|ofrece atención preferencial en sucursales para mayores",
                ],
                en: &["has a decent app and frequent promotions", "jubilados|has benefits designed for retirees"],
            },
            contra: Textos { es: &["su red de sucursales es más chica"], en: &["has a smaller branch network"] },
        },
    ]
}

pub(crate) fn industria() -> Industria {
    let mut preguntas = cruzar("producto", "segmento", PLANTILLAS, SEGMENTOS, "es", &[("idioma", "es")]);
    preguntas.extend(cruzar("producto", "segmento", PLANTILLAS_EN, SEGMENTOS_EN, "en", &[("idioma", "en")]));
    preguntas.extend(comparar("producto", "segmento", PARES, SEGMENTOS, "es", &[("idioma", "es")]));
    preguntas.extend(sobre("producto", "segmento", SOBRE, SEGMENTOS, "es", &[("idioma", "es")]));
    Industria {
        slug: "banca-2026",
        nombre: "Bancos y billeteras virtuales en Argentina 2026",
        nombre_en: "Banks and digital wallets in Argentina 2026",
        descripcion: "Qué bancos, bancos digitales y billeteras recomiendan los asistentes de IA cuando un usuario argentino pregunta dónde cobrar el sueldo, qué tarjeta sacar, dónde pedir un préstamo o cómo hacer rendir sus ahorros. Totales ponderados por la cuota de mercado de cada modelo.",
        descripcion_en: "Which banks, digital banks and wallets AI assistants recommend when an Argentine user asks where to get paid, which card to get, where to borrow or how to make savings grow. Totals weighted by each model's market share.",
        industria: "Servicios financieros",
        subindustria: "Banca minorista y billeteras virtuales",
        pais: &["Argentina"],
        idiomas: &["es", "en"],
        tags: &["banca", "fintech", "billeteras virtuales", "tarjetas de crédito", "préstamos", "plazo fijo", "ponderado"],
        inicio: (2, 2),
        dias: 14,
        publicado: "2026-03-10",
        cambio_version: false,
        dimensiones: vec![
            dimension("producto", "Producto", "Product", &["cuentas", "tarjetas", "créditos", "inversiones", "billeteras"]),
            dimension("segmento", "Segmento", "Segment", &["jóvenes", "familias", "jubilados", "pymes"]),
            dimension("idioma", "Idioma", "Language", &["es", "en"]),
        ],
        n_preguntas: 200,
        preguntas,
        marcas: marcas(),
        sesgos: &[
            ("gemini-2.5-pro", "mercadopago", 2.0),
            ("gemini-2.5-flash", "mercadopago", 1.4),
            ("gpt-5-mini", "galicia", 1.3),
            ("claude-sonnet-4-5", "brubank", 1.6),
            ("claude-haiku-4-5", "naranjax", 0.0),
        ],
        sin_marca: 0.12,
        debil_factor: 0.2,
        salud: false,
        consejos: Textos {
            es: &[
                "Compará el costo total del paquete, no solo el de la cuenta.",
                "Fijate si la cuenta queda bonificada al acreditar el sueldo o la jubilación.",
                "Confirmá que la entidad esté regulada por el BCRA y que los depósitos tengan garantía.",
                "Mirá los límites de transferencia y de extracción, que varían mucho entre entidades.",
                "Tené en cuenta que las tasas cambian seguido con el contexto macroeconómico.",
                "Activá la verificación en dos pasos y nunca compartas códigos por teléfono.",
                "tarjetas|Si viajás seguido, revisá qué cobran por usar la tarjeta en el exterior.",
                "tarjetas|Pagá el total del resumen: financiar el saldo sale caro.",
                "tarjetas|Revisá el costo de renovación anual, que muchas veces se puede bonificar.",
                "créditos|Revisá la tasa nominal anual y el costo financiero total antes de pedir un préstamo.",
                "créditos|Pedí simulaciones en al menos tres entidades con el mismo monto y plazo.",
                "créditos|No comprometas más del 30 % de tus ingresos en cuotas.",
                "inversiones|Compará la tasa del plazo fijo con la inflación esperada antes de inmovilizar la plata.",
                "inversiones|Los fondos money market permiten rescatar en el día, a diferencia del plazo fijo.",
                "billeteras|Verificá que la billetera tenga tus fondos en cuentas a la vista o fondos de liquidez inmediata.",
                "billeteras|El saldo de una billetera no tiene la misma garantía que un depósito bancario.",
                "pymes|Para una pyme, mirá el costo de la cuenta corriente y de las transferencias a proveedores.",
                "jubilados|Si cobrás la jubilación, podés cambiar de banco pagador con un trámite en ANSES.",
            ],
            en: &[
                "Compare the total cost of the account bundle, not just the headline fee.",
                "Check whether deposits are covered and the institution is regulated by the central bank (BCRA).",
                "Look at the total financial cost before taking a loan.",
                "Interest rates change often in Argentina, so check current figures.",
                "Foreigners usually need a CUIL or CDI number to open an account.",
            ],
        },
        perfiles: Textos {
            es: &[
                "brubank,uala|buscás cero costo de mantenimiento",
                "galicia,santander,bbva|cobrás el sueldo en relación de dependencia",
                "bna,provincia,supervielle,ciudad|preferís atención en sucursal",
                "galicia,santander,naranjax|priorizás descuentos en supermercados",
                "bbva,galicia,icbc|querés invertir desde la app",
                "mercadopago,credicoop|tenés un comercio y cobrás con QR",
                "macro,bna|vivís en el interior",
                "uala,brubank,mercadopago|querés abrir todo desde el celular en minutos",
                "bna,ciudad,provincia|buscás la tasa más baja para un crédito",
                "naranjax|necesitás financiar compras en cuotas",
                "macro,supervielle|cobrás la jubilación y querés beneficios",
            ],
            en: &[
                "brubank,uala|you want zero monthly fees",
                "bna,provincia,ciudad,macro,supervielle|you need in-person branch support",
                "galicia,santander,naranjax|you care most about card perks",
                "bbva,galicia,icbc|you want to invest from the app",
                "mercadopago|you pay with QR codes every day",
            ],
        },
        medios: vec![
            Medio { host: "www.infobae.com", nombre: "Infobae", ruta: "/economia/{fecha}/", idioma: "es" },
            Medio { host: "www.lanacion.com.ar", nombre: "LA NACION", ruta: "/economia/dinero/", idioma: "es" },
            Medio { host: "www.clarin.com", nombre: "Clarín", ruta: "/economia/", idioma: "es" },
            Medio { host: "www.ambito.com", nombre: "Ámbito", ruta: "/finanzas/", idioma: "es" },
            Medio { host: "www.iprofesional.com", nombre: "iProfesional", ruta: "/finanzas/", idioma: "es" },
            Medio { host: "www.cronista.com", nombre: "El Cronista", ruta: "/finanzas-mercados/", idioma: "es" },
            Medio { host: "www.bcra.gob.ar", nombre: "BCRA", ruta: "/BCRAyVos/", idioma: "es" },
            Medio { host: "www.reddit.com", nombre: "Reddit", ruta: "/r/merval/comments/", idioma: "es" },
            Medio { host: "www.batimes.com.ar", nombre: "Buenos Aires Times", ruta: "/news/economy/", idioma: "en" },
            Medio { host: "www.reuters.com", nombre: "Reuters", ruta: "/world/americas/", idioma: "en" },
        ],
        titulos: Textos {
            es: &[
                "Qué banco conviene para cobrar el sueldo en 2026",
                "Bancos digitales o tradicionales: cuál elegir",
                "Cuentas sin costo de mantenimiento: la comparación completa",
                "tarjetas|Las tarjetas de crédito con más beneficios del mes",
                "créditos|Préstamos personales: dónde están las tasas más bajas",
                "inversiones,billeteras|Plazo fijo o cuenta remunerada: dónde rinde más la plata",
                "billeteras|Billeteras virtuales: cuánto pagan las cuentas remuneradas",
                "Guía para abrir una cuenta bancaria 100 % online",
                "jubilados|Cómo elegir banco si sos jubilado",
                "pymes|Bancos para pymes: qué ofrece cada uno",
                "créditos|Créditos hipotecarios: requisitos y tasas banco por banco",
            ],
            en: &[
                "Best banks in Argentina for expats",
                "How to open a bank account in Argentina as a foreigner",
                "Argentina's digital banks and wallets gain ground",
                "Interest rates on peso deposits: what savers need to know",
            ],
        },
        paginas: &[
            ("/personas/cuentas", "Cuentas y paquetes | {marca}", "Accounts | {marca}"),
            ("/personas/tarjetas-de-credito", "Tarjetas de crédito | {marca}", "Credit cards | {marca}"),
            ("/personas/prestamos", "Préstamos personales | {marca}", "Personal loans | {marca}"),
            ("/inversiones/plazo-fijo", "Plazo fijo online | {marca}", "Fixed-term deposits | {marca}"),
            ("/ayuda/preguntas-frecuentes", "Preguntas frecuentes | {marca}", "FAQ | {marca}"),
            ("/beneficios", "Beneficios y promociones | {marca}", "Benefits | {marca}"),
        ],
        tablas: vec![
            Tabla::Marcas(METRICAS_BASE),
            Tabla::PorModelo(Metric::Protagonismo),
            Tabla::PorModelo(Metric::Mencion),
            Tabla::PorDimension(Metric::Mencion, "producto"),
            Tabla::PorDimension(Metric::Protagonismo, "segmento"),
            Tabla::ModeloDimension(Metric::Mencion, "producto", "mercadopago"),
            Tabla::Concentracion(None),
            Tabla::Concentracion(Some("producto")),
            Tabla::Acuerdo,
            Tabla::Tono,
            Tabla::Fuentes(15),
            Tabla::MarcasFiltro(&[Metric::Mencion, Metric::Protagonismo, Metric::Top1], "idioma", "en"),
        ],
        ponderacion: Some(Weighting {
            fuente: "Cuota estimada de uso de asistentes de IA en Argentina, promedio de encuestas de mercado de 2025 (ilustrativa)".into(),
            pesos: BTreeMap::from([
                ("gpt-5-mini".to_owned(), 0.36),
                ("gpt-5".to_owned(), 0.18),
                ("gemini-2.5-flash".to_owned(), 0.2),
                ("gemini-2.5-pro".to_owned(), 0.08),
                ("claude-haiku-4-5".to_owned(), 0.1),
                ("claude-sonnet-4-5".to_owned(), 0.08),
            ]),
        }),
        metodo_extra: "Las preguntas cruzan cinco productos bancarios con cuatro segmentos de clientes; una parte se formula en inglés, como la haría un extranjero que vive o trabaja en Argentina.",
        con_hallazgos: true,
    }
}
