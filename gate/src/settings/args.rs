//! What the user typed on the gate's command line (the first of the two steps: the validated
//! [`super::Settings`] come from it). The doc comments of the options are their `--help`, in
//! Spanish like every command line of the workspace (see the `cli` crate); flags are Spanish,
//! with the English names that shipped kept as hidden aliases (the book's *Naming*, docs/src/diseno/arquitectura.md).

use std::path::PathBuf;

use clap::Parser;

use super::redact::{rpc_flags_shown, url_shown};
use crate::manifest::Mode;

/// The environment variables the gate reads (its `--help` and the book's reference list them;
/// the `referencia` test fails when the code reads one not listed here).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("GATE_LOG", "Filtro de registros de tracing (por defecto info,pingora_core=warn,rustls=error)."),
    (
        "GATE_LINK_SECRET",
        "Clave de los enlaces firmados, al menos 32 bytes; la misma en cada gate (fuera del modo local, obligatoria).",
    ),
    (
        "GATE_RECEIPT_KEY",
        "Clave de los recibos del editor: semilla Ed25519 de 32 bytes en hexadecimal (fuera del modo local, obligatoria).",
    ),
    (
        "GATE_RECEIPT_KEYS_ANTERIORES",
        "Claves de recibos anteriores a una rotación (did:key:z6Mk…, separadas por comas), publicadas en /.well-known/did.json.",
    ),
    (
        "GATE_VENTAS",
        "URL de la base PostgreSQL de ventas, en lugar de --ventas (no queda a la vista en la lista de procesos).",
    ),
    ("GATE_VENTAS_CONEXIONES", "Conexiones a la base de ventas por gate (1 a 1000)."),
    ("GATE_FACILITATOR_URL", "URL del facilitador x402 (en lugar del que corresponde al modo)."),
    ("GATE_FACILITATOR_AUTH", "Encabezado Nombre: valor que se manda al facilitador (p. ej. Authorization: Bearer …)."),
    ("GATE_FACILITATOR_TIMEOUT", "Segundos de espera de cada pedido al facilitador."),
    ("CDP_API_KEY_ID", "Identificador de la clave de Coinbase CDP, para su facilitador en mainnet."),
    ("CDP_API_KEY_SECRET", "Secreto de la clave de Coinbase CDP."),
    (
        "GATE_SETTLER_KEY",
        "Clave de la cuenta que envía transferWithAuthorization cuando el facilitador local liquida en una cadena.",
    ),
    (
        "GATE_FABRICAS_6492",
        "Con el facilitador local en una cadena: más fábricas ERC-6492 que pueden desplegar la billetera inteligente de un pagador, separadas por comas.",
    ),
    (
        "GATE_RPC_EIP155_<ID>",
        "RPC de la red EVM eip155:<ID> (p. ej. GATE_RPC_EIP155_8453 para Base), para conciliar y liquidar.",
    ),
    ("GATE_MCP_HOSTS", "Hosts admitidos en /mcp además de localhost y el del servicio (separados por comas)."),
    ("GATE_RELOJ_PRUEBA", "Solo pruebas: segundos que se corre el reloj del proceso."),
    (
        "GATE_VENTAS_PLAZO_PRUEBA",
        "Solo pruebas (compilado con test-faults): segundos que se retiene una autorización en curso.",
    ),
    (
        "GATE_FALLA_PRUEBA",
        "Solo pruebas (compilado con test-faults): falla que se provoca alrededor de una liquidación.",
    ),
];

/// What the gate's exit status means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Terminó bien (al servir, se detuvo con SIGTERM o SIGINT)."),
    ("1", "Un error, o gate verificar encontró una FALLA."),
    ("2", "La línea de comando está mal escrita."),
    ("3", "gate ventas: hay compras inciertas por conciliar."),
];

/// What the user typed. The doc comments of the options are their `--help`, in Spanish like
/// every command line of the workspace (see the `cli` crate). Its `Debug` hides what a URL may
/// carry (the database password, a key in a facilitator's URL).
#[derive(Parser)]
#[command(
    name = "gate",
    version,
    about = "Sirve dist/, vende los estudios con x402 v2 y protege las descargas.",
    after_help = cli::epilogue(ENVIRONMENT, EXIT_STATUS)
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Salida de `generator build`.
    #[arg(long, value_name = "CARPETA", default_value = "./dist")]
    pub dist: PathBuf,
    /// Dirección IP:puerto donde escuchar (p. ej. 0.0.0.0:8080 para toda la red).
    #[arg(long = "escuchar", alias = "listen", value_name = "IP:PUERTO", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Carpeta de datos: archivo pid, socket de relevo, clave local de enlaces, libro del facilitador
    /// local y diario de ventas.
    #[arg(long = "datos", alias = "data", value_name = "CARPETA", default_value = "./var")]
    pub data: PathBuf,
    /// Hilos de trabajo (por defecto, uno por núcleo).
    #[arg(long = "hilos", alias = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// URL del facilitador (reemplaza a GATE_FACILITATOR_URL; en modo local, se usa en lugar del
    /// facilitador incluido).
    #[arg(long = "facilitador", value_name = "URL")]
    pub facilitator: Option<String>,
    /// Hosts adicionales admitidos en los encabezados Host y Origin de los endpoints MCP,
    /// separados por comas (reemplaza a GATE_MCP_HOSTS; localhost y el host de base_url se
    /// admiten siempre).
    #[arg(long = "hosts-mcp", alias = "mcp-hosts", value_name = "HOSTS")]
    pub mcp_hosts: Option<String>,
    /// Certificado TLS (cadena PEM): el gate sirve HTTPS con HTTP/2 y HTTP/1.1; se recarga con
    /// SIGHUP. Va con --clave-tls.
    #[arg(long = "certificado-tls", alias = "tls-cert", value_name = "ARCHIVO", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// Clave privada PEM del certificado de --certificado-tls.
    #[arg(long = "clave-tls", alias = "tls-key", value_name = "ARCHIVO", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Proxies de confianza (direcciones o redes CIDR, separadas por comas): solo de ellos se
    /// creen Forwarded y X-Forwarded-For para la dirección del cliente (límites y registros); de
    /// cualquier otro se ignoran.
    #[arg(long, value_name = "REDES")]
    pub proxies: Option<String>,
    /// Conexiones atendidas a la vez; más allá, un pedido recibe 503.
    #[arg(long = "max-conexiones", value_name = "N", default_value_t = 1024)]
    pub max_connections: usize,
    /// Segundos que tiene un cliente para enviar el encabezado de un pedido, y luego su cuerpo
    /// (ahí terminan los clientes lentos y las conexiones inactivas).
    #[arg(long = "limite-lectura", value_name = "SEGUNDOS", default_value_t = 15.0)]
    pub read_timeout: f64,
    /// Enviar las descargas por partes desde el proceso en lugar de con sendfile(2) (como
    /// `sendfile off` de nginx, para sistemas de archivos donde sendfile falla).
    #[arg(long = "sin-sendfile")]
    pub no_sendfile: bool,
    /// Intentos de pago rechazados que puede hacer una dirección de cliente (IPv6: su /64) por
    /// ventana; después, 429.
    #[arg(long = "fallos-por-cliente", value_name = "N", default_value_t = 20)]
    pub refusals_per_client: u32,
    /// Liquidaciones rechazadas que puede tener un pagador por ventana; después, 429.
    #[arg(long = "fallos-por-pagador", value_name = "N", default_value_t = 5)]
    pub refusals_per_payer: u32,
    /// Liquidaciones rechazadas que acepta el gate entero por ventana antes de rechazar las
    /// nuevas con 429.
    #[arg(long = "fallos-globales", value_name = "N", default_value_t = 600)]
    pub refusals_in_all: u32,
    /// La ventana de los tres límites anteriores, en segundos.
    #[arg(long = "ventana-fallos", value_name = "SEGUNDOS", default_value_t = 600)]
    pub refusal_window: u64,
    /// Tamaño (MB) a partir del cual el diario de ventas empieza un archivo nuevo
    /// (`ventas.NNNNNN.jsonl`).
    #[arg(long = "diario-max-mb", value_name = "MB", default_value_t = 64)]
    pub journal_max_mb: u64,
    /// Relevar a un gate en marcha con la misma --datos sin cortar el servicio: este proceso
    /// espera su socket, que el anterior entrega al recibir SIGQUIT.
    #[arg(long = "relevo")]
    pub take_over: bool,
    /// Registro de ventas compartido en PostgreSQL (postgres://usuario:clave@host:puerto/base)
    /// en lugar del diario en --datos: varios gates con la misma base reconocen cualquier venta.
    /// Mejor en GATE_VENTAS, que no se ve en la lista de procesos (la URL lleva la clave).
    #[arg(long = "ventas", value_name = "URL")]
    pub sales_url: Option<String>,
    /// RPC de una red EVM, como RED=URL (p. ej. eip155:8453=https://…), repetible: con él, el
    /// gate no entrega un estudio por la palabra de un facilitador salvo un éxito con
    /// transacción, y busca en la cadena la prueba de todo lo demás. Mejor en
    /// GATE_RPC_EIP155_<id>, que no se ve en la lista de procesos (la URL suele llevar una clave).
    #[arg(long, value_name = "RED=URL")]
    pub rpc: Vec<String>,
    /// Segundos entre dos conciliaciones con la cadena de las compras inciertas (con un RPC).
    #[arg(long = "conciliar-cada", value_name = "SEGUNDOS", default_value_t = 30)]
    pub reconcile_every: u64,
    /// Dirección IP:puerto de las métricas de Prometheus (GET /metrics, y /salud y /listo), aparte
    /// de la de los compradores (p. ej. 127.0.0.1:9090). Sin ella, no hay métricas.
    #[arg(long = "escuchar-metricas", alias = "listen-metricas", value_name = "IP:PUERTO")]
    pub metrics_listen: Option<String>,
}

/// Subcommands besides serving.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Muestra las ventas del diario (`--datos`/ventas.jsonl, o la base de --ventas) con totales
    /// por estudio, red y día. Sale con 3 si hay compras inciertas por conciliar.
    #[command(name = "ventas")]
    Sales(SalesArgs),
    /// Comprueba, sin mover dinero, todo lo que hace falta para vender.
    #[command(
        name = "verificar",
        visible_alias = "preflight",
        about = "Comprueba, sin mover dinero, todo lo que hace falta para vender",
        long_about = "Comprueba, sin mover dinero, todo lo que hace falta para vender: que dist/ se construyó para el modo pedido con las redes, activos y dominios EIP-712 canónicos, las direcciones de cobro (checksum EIP-55, base58 de Solana), la clave de los enlaces, que base_url es https, y que el facilitador responde /supported con sus credenciales para exact en cada red ofrecida. Fuera del modo local rechaza además una dirección de cobro que sea una cuenta de desarrollo de Hardhat/Anvil, estudios cuya nota dice que son sintéticos y un terminador TLS delante sin --proxies, y avisa si el diario de --datos tiene ventas del modo local. Una línea por comprobación (ok, AVISO o FALLA); sale con 1 si alguna falla."
    )]
    Verify(VerifyArgs),
    /// Imprime un JWT de CDP para un pedido, firmado con CDP_API_KEY_ID/CDP_API_KEY_SECRET (pruebas).
    #[command(name = "token-cdp", hide = true, about = "Imprime un JWT de CDP para un pedido (pruebas).")]
    TokenCdp(TokenCdpArgs),
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    #[arg(
        long,
        value_name = "CARPETA",
        default_value = "./dist",
        help = "Salida de `generator build`, como al servir."
    )]
    pub dist: PathBuf,
    #[arg(
        long = "datos",
        alias = "data",
        value_name = "CARPETA",
        default_value = "./var",
        help = "Carpeta de datos del gate, como al servir."
    )]
    pub data: PathBuf,
    #[arg(
        long = "facilitador",
        value_name = "URL",
        help = "URL del facilitador (reemplaza a GATE_FACILITATOR_URL), como al servir."
    )]
    pub facilitator: Option<String>,
    #[arg(
        long = "modo",
        value_name = "MODO",
        value_parser = ["local", "testnet", "mainnet"],
        help = "Modo para el que debe estar construido dist/ (mainnet para salir con dinero real)."
    )]
    pub mode_name: Option<String>,
    #[arg(
        long,
        value_name = "RED=URL",
        help = "RPC de una red EVM (repetible; o GATE_RPC_EIP155_<id>): se comprueba la cadena, el dominio del activo y payTo."
    )]
    pub rpc: Vec<String>,
    #[arg(
        long = "escuchar",
        alias = "listen",
        value_name = "IP:PUERTO",
        help = "Dirección IP:puerto donde escuchará el gate, como al servir."
    )]
    pub listen: Option<String>,
    #[arg(
        long,
        value_name = "REDES",
        help = "Proxies de confianza, como al servir (hace falta detrás de un terminador TLS)."
    )]
    pub proxies: Option<String>,
    #[arg(
        long = "certificado-tls",
        alias = "tls-cert",
        value_name = "ARCHIVO",
        help = "Certificado TLS, como al servir: el gate sirve HTTPS él mismo."
    )]
    pub tls_cert: Option<PathBuf>,
}

impl VerifyArgs {
    pub fn mode(&self) -> Option<Mode> {
        match self.mode_name.as_deref()? {
            "local" => Some(Mode::Local),
            "testnet" => Some(Mode::Testnet),
            _ => Some(Mode::Mainnet),
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct TokenCdpArgs {
    #[arg(value_name = "METODO", help = "Método HTTP (GET, POST).")]
    pub method: String,
    #[arg(help = "URL completa del pedido.")]
    pub url: String,
}

#[derive(clap::Args)]
pub struct SalesArgs {
    #[command(subcommand)]
    pub action: Option<SalesAction>,
    /// Carpeta de datos del gate.
    #[arg(long = "datos", alias = "data", value_name = "CARPETA", default_value = "./var", global = true)]
    pub data: PathBuf,
    /// El registro de ventas compartido en PostgreSQL (o GATE_VENTAS) en lugar del diario de
    /// --datos.
    #[arg(long = "ventas", value_name = "URL", global = true)]
    pub sales_url: Option<String>,
    /// JSON en lugar de una tabla (lo mismo que --formato json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// tabla (por defecto), json, o csv: una fila por venta, para una planilla o el contador.
    #[arg(long = "formato", value_name = "FORMATO", value_parser = ["tabla", "json", "csv"])]
    pub format: Option<String>,
    /// Solo las ventas desde este día, inclusive (AAAA-MM-DD, UTC).
    #[arg(long = "desde", value_name = "AAAA-MM-DD")]
    pub from: Option<String>,
    /// Solo las ventas hasta este día, inclusive (AAAA-MM-DD, UTC).
    #[arg(long = "hasta", value_name = "AAAA-MM-DD")]
    pub until: Option<String>,
}

/// What to do with the journal besides printing it.
#[derive(Debug, clap::Subcommand)]
pub enum SalesAction {
    /// Registra cómo se resolvió una compra a conciliar, después de buscar su nonce en la cadena.
    #[command(name = "conciliar")]
    Reconcile(ReconcileArgs),
    /// Carga el diario de --datos (ventas.jsonl y sus segmentos) en la base de --ventas; lo ya
    /// cargado no se repite, así que se puede correr otra vez.
    #[command(name = "importar")]
    Import,
}

/// `gate ventas conciliar`: by hand (a purchase and how it ended) or, with no purchase named,
/// every uncertain purchase from the chain through its network's RPC.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("resultado").args(["settled_in", "unpaid"]).requires("purchase")))]
pub struct ReconcileArgs {
    /// La clave de la compra (`compra`, como la lista `gate ventas`), con --liquidada o
    /// --sin-pago. Sin ella, se concilia cada compra incierta con la cadena (GATE_RPC_EIP155_<id>
    /// o --rpc): pagada, cancelada, o vencida sin usarse.
    #[arg(requires = "resultado", value_name = "COMPRA")]
    pub purchase: Option<String>,
    /// El dinero se movió, en esta transacción (hash).
    #[arg(long = "liquidada", value_name = "TRANSACCION")]
    pub settled_in: Option<String>,
    /// El nonce no se usó o la autorización venció sin usarse: no se cobró nada.
    #[arg(long = "sin-pago")]
    pub unpaid: bool,
    /// Una nota que se guarda con la resolución (dónde se comprobó).
    #[arg(long = "nota", value_name = "TEXTO", default_value = "")]
    pub note: String,
    /// RPC de una red EVM como RED=URL (repetible), para conciliar con la cadena.
    #[arg(long, value_name = "RED=URL")]
    pub rpc: Vec<String>,
}

// The `Debug` impls below destructure without `..`: a field added later does not compile until
// someone decides whether it is a secret.

impl std::fmt::Debug for Args {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Args {
            command,
            dist,
            listen,
            data,
            threads,
            facilitator,
            mcp_hosts,
            tls_cert,
            tls_key,
            proxies,
            max_connections,
            read_timeout,
            no_sendfile,
            refusals_per_client,
            refusals_per_payer,
            refusals_in_all,
            refusal_window,
            journal_max_mb,
            take_over,
            sales_url,
            rpc,
            reconcile_every,
            metrics_listen,
        } = self;
        f.debug_struct("Args")
            .field("command", command)
            .field("dist", dist)
            .field("listen", listen)
            .field("data", data)
            .field("threads", threads)
            .field("facilitator", &url_shown(facilitator))
            .field("mcp_hosts", mcp_hosts)
            .field("tls_cert", tls_cert)
            .field("tls_key", tls_key)
            .field("proxies", proxies)
            .field("max_connections", max_connections)
            .field("read_timeout", read_timeout)
            .field("no_sendfile", no_sendfile)
            .field("refusals_per_client", refusals_per_client)
            .field("refusals_per_payer", refusals_per_payer)
            .field("refusals_in_all", refusals_in_all)
            .field("refusal_window", refusal_window)
            .field("journal_max_mb", journal_max_mb)
            .field("take_over", take_over)
            .field("sales_url", &url_shown(sales_url))
            .field("rpc", &rpc_flags_shown(rpc))
            .field("reconcile_every", reconcile_every)
            .field("metrics_listen", metrics_listen)
            .finish()
    }
}

impl std::fmt::Debug for VerifyArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let VerifyArgs { dist, data, facilitator, mode_name, rpc, listen, proxies, tls_cert } = self;
        f.debug_struct("VerificarArgs")
            .field("dist", dist)
            .field("data", data)
            .field("facilitator", &url_shown(facilitator))
            .field("mode_name", mode_name)
            .field("rpc", &rpc_flags_shown(rpc))
            .field("listen", listen)
            .field("proxies", proxies)
            .field("tls_cert", tls_cert)
            .finish()
    }
}

impl std::fmt::Debug for SalesArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let SalesArgs { action, data, sales_url, json, format, from, until } = self;
        f.debug_struct("VentasArgs")
            .field("action", action)
            .field("data", data)
            .field("sales_url", &url_shown(sales_url))
            .field("json", json)
            .field("format", format)
            .field("from", from)
            .field("until", until)
            .finish()
    }
}

impl std::fmt::Debug for ReconcileArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ReconcileArgs { purchase, settled_in, unpaid, note, rpc } = self;
        f.debug_struct("ConciliarArgs")
            .field("purchase", purchase)
            .field("settled_in", settled_in)
            .field("unpaid", unpaid)
            .field("note", note)
            .field("rpc", &rpc_flags_shown(rpc))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_english_flags_that_shipped_still_work_as_aliases_of_the_spanish_ones() {
        let spanish = [
            "gate",
            "--escuchar",
            "127.0.0.1:9",
            "--datos",
            "d",
            "--hilos",
            "3",
            "--hosts-mcp",
            "h.example",
            "--certificado-tls",
            "c.pem",
            "--clave-tls",
            "k.pem",
            "--escuchar-metricas",
            "127.0.0.1:10",
        ];
        let english = [
            "gate",
            "--listen",
            "127.0.0.1:9",
            "--data",
            "d",
            "--threads",
            "3",
            "--mcp-hosts",
            "h.example",
            "--tls-cert",
            "c.pem",
            "--tls-key",
            "k.pem",
            "--listen-metricas",
            "127.0.0.1:10",
        ];
        let (a, b) = (Args::try_parse_from(spanish).expect("spanish"), Args::try_parse_from(english).expect("english"));
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(
            (a.listen.as_str(), a.threads, a.metrics_listen.as_deref()),
            ("127.0.0.1:9", Some(3), Some("127.0.0.1:10"))
        );
        let verify =
            Args::try_parse_from(["gate", "verificar", "--listen", "0.0.0.0:80", "--data", "v", "--tls-cert", "c"]);
        let Some(Command::Verify(v)) = verify.expect("verificar").command else { panic!("verificar") };
        assert_eq!((v.listen.as_deref(), v.data.to_str(), v.tls_cert.is_some()), (Some("0.0.0.0:80"), Some("v"), true));
        // The help lists the Spanish names only.
        let help = <Args as clap::CommandFactory>::command().render_long_help().to_string();
        assert!(help.contains("--escuchar <IP:PUERTO>") && !help.contains("--listen "), "{help}");
    }
}
