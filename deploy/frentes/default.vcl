# The gate behind Debian's Varnish: /etc/varnish/default.vcl (docs/src/operar/frentes-y-cdn.md).
# Varnish caches what the gate marks public (free pages, search) for the max-age it states,
# keyed by Vary (`/` by Accept); it never stores the 402 (no-store), paid or personal answers
# (private, no-store). Paid, personal and MCP requests go straight to the gate (`pass`), with
# Range passed through. X-Cache says HIT or MISS. Varnish speaks plain HTTP: put a TLS
# terminator (e.g. Caddy or HAProxy) in front, and start the gate with `--proxies 127.0.0.1`.
# tests/tests/frentes.rs runs this file with the backend's port replaced.
vcl 4.1;

backend default {
    .host = "127.0.0.1";
    .port = "8080";
}

# Who may purge: the machine itself (the deploy script that runs after a build).
acl purga {
    "localhost";
    "127.0.0.1";
}

sub vcl_recv {
    # After a build, for each line of dist.purgar.txt: PURGE drops that path (every Vary
    # variant); BAN drops every URL that starts with it (/buscar: every cached search).
    if (req.method == "PURGE" || req.method == "BAN") {
        if (client.ip !~ purga) {
            return (synth(405, "No permitido"));
        }
        if (req.method == "BAN") {
            ban("req.url ~ ^" + req.url);
            return (synth(200, "Prohibido"));
        }
        return (purge);
    }
    # A study (paid), a download (signed, personal), MCP, or any request carrying a payment or
    # a sign-in: to the gate every time.
    if (req.url ~ "^/estudio/[^/?]+(\?.*)?$" || req.url ~ "^/descarga/" || req.url ~ "^/mcp" ||
        req.http.PAYMENT-SIGNATURE || req.http.SIGN-IN-WITH-X || req.http.Authorization) {
        return (pass);
    }
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
