//! A small industry for the engine's unit tests: three brands, two dimensions, two context
//! sets and one question block of each shape, small enough to predict every question.
#![allow(clippy::unwrap_used, reason = "test fixture")]

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::industry::Industry;
use crate::loading::load;
use crate::models::{Model, models};

pub(crate) const TOML: &str = r#"
slug = "prueba-2026"
nombre = "Prueba"
nombre_en = "Test"
descripcion = "Un estudio de prueba."
descripcion_en = "A test study."
industria = "Pruebas"
subindustria = "Unidades"
pais = ["Argentina"]
idiomas = ["es", "en"]
tags = ["prueba"]
publicado = "2026-03-01"
inicio = { mes = 2, dia = 1 }
dias = 10
cambio_version = false
n_preguntas = 10
con_hallazgos = false
metodo_extra = "Nada más."
sin_marca = 0.1
debil_factor = 0.2
salud = false
sesgos = [{ modelo = "gpt-5", marca = "gama", factor = 3.0 }]

[[dimensiones]]
id = "producto"
etiqueta = "Producto"
etiqueta_en = "Product"
valores = ["cuentas", "tarjetas"]

[[dimensiones]]
id = "segmento"
etiqueta = "Segmento"
etiqueta_en = "Segment"
valores = ["jóvenes", "jubilados"]

[contextos.segmentos]
dimension = "segmento"

[[contextos.segmentos.grupos]]
valor = "jóvenes"
frases = ["Tengo 23 años.", "Soy estudiante."]

[[contextos.segmentos.grupos]]
valor = "jubilados"
frases = ["Soy jubilado.", "Cobro por ANSES.", "Vivo en Rosario."]

[contextos.lista]
frases = ["Uno.", "Dos.", "Tres."]

[[preguntas]]
idioma = "es"
contexto = "segmentos"
plantillas = [
    { producto = "cuentas", tipo = "lista", texto = "¿Qué banco me conviene?" },
    { producto = "tarjetas", tipo = "consejo", texto = "¿Cómo bajo el costo?" },
]

[[preguntas]]
idioma = "es"
contexto = "segmentos"
frase = "primera"
pares = [
    { producto = "cuentas", marca_a = "alfa", nombre_a = "Alfa", marca_b = "beta", nombre_b = "Omega Beta", texto = "¿{a_o_b}?" },
]

[[preguntas]]
idioma = "es"
contexto = "segmentos"
frase = "ultima"
sobre_marca = [{ producto = "tarjetas", marca = "gama", texto = "¿Es buena Gama?" }]

[[preguntas]]
idioma = "en"
contexto = "lista"
frase = "rotativa"
valores = { producto = "cuentas", segmento = "jóvenes" }
redacciones = ["{a} or {b}?", "{a} vs {b}?"]
pares = [
    { marca_a = "alfa", nombre_a = "Alfa", marca_b = "beta", nombre_b = "Beta" },
    { marca_a = "beta", nombre_a = "Beta", marca_b = "gama", nombre_b = "Gama" },
]

[[preguntas]]
idioma = "en"
valores = { producto = "tarjetas", segmento = "jubilados" }
plantillas = [{ tipo = "lista", texto = "Which card?" }]

[[marcas]]
id = "alfa"
nombre = "Banco Alfa"
alias = ["Alfa", "~Alfa Plus"]
dominios = ["alfa.com.ar"]
peso = 1.0
foco = ["cuentas"]
neg = 0.1
pro = ["tiene una app simple", "tarjetas|da descuentos con tarjeta", "jubilados|atiende bien a jubilados"]
pro_en = ["has a simple app"]
contra = ["cobra mantenimiento"]
contra_en = ["charges a monthly fee"]

[[marcas]]
id = "beta"
nombre = "Beta"
dominios = ["beta.com", "betabank.com"]
peso = 0.5
debil = ["tarjetas"]
neg = 0.3
pro = ["no cobra comisiones"]
contra = ["tiene pocas sucursales"]

[[marcas]]
id = "gama"
nombre = "Gama"
dominios = ["gama.com.ar"]
peso = 0.25
neg = 0.1
pro = ["tiene buena atención"]

[consejos]
es = [
    "Compará el costo total.",
    "tarjetas|Pagá el total del resumen.",
    "cuentas|Fijate si bonifican la cuenta.",
    "jubilados|Podés cambiar de banco en ANSES.",
    "Activá la verificación en dos pasos.",
]
en = ["Compare the total cost.", "Check the fees."]

[perfiles]
es = ["alfa|cobrás el sueldo", "beta|querés cero costo", "gama|preferís atención en sucursal"]
en = ["alfa|you get paid there"]

[titulos]
es = ["Qué banco conviene en 2026", "tarjetas|Las tarjetas con más beneficios"]
en = ["Best banks in Argentina"]

[fuentes]
medios = [
    { host = "www.infobae.com", nombre = "Infobae", ruta = "/economia/{fecha}/", idioma = "es" },
    { host = "www.reddit.com", nombre = "Reddit", ruta = "/r/merval/comments/", idioma = "*" },
    { host = "www.lanacion.com.ar", nombre = "LA NACION", ruta = "/economia/", idioma = "es" },
    { host = "www.reuters.com", nombre = "Reuters", ruta = "/world/", idioma = "en" },
]
paginas = [{ ruta = "/personas", titulo = "Personas | {marca}", titulo_en = "Personal | {marca}" }]

[analisis]
tablas = [{ tipo = "marcas", metricas = ["mencion"] }, { tipo = "acuerdo" }]
"#;

/// The test industry, loaded and expanded like a real file.
pub(crate) fn industry() -> Industry {
    industry_with("", "")
}

/// The test industry with the first occurrence of `de` in its file replaced by `a`.
pub(crate) fn industry_with(from: &str, a: &str) -> Industry {
    assert!(TOML.contains(from), "the fixture contains {from:?}");
    load("prueba.toml", &TOML.replacen(from, a, 1), &models().unwrap()).unwrap()
}

/// The six real models.
pub(crate) fn all_models() -> Vec<Model> {
    models().unwrap()
}

/// One of the real models, by id.
pub(crate) fn model(id: &str) -> Model {
    all_models().into_iter().find(|m| m.id == id).unwrap()
}

pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}
