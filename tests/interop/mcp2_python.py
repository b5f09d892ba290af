"""MCP Python SDK 2.x: the official `mcp` package's Client (which speaks both eras) buys a study
on /mcp over the stateless revision 2026-07-28 (negotiated with `server/discover`, mode "auto",
and pinned) and over the legacy initialize handshake (mode "legacy"). Each time it lists the
tools, reads a free sheet, calls comprar_estudio without payment to get the x402
PaymentRequired from structuredContent, signs it with the official `x402` SDK's EVM scheme
(a local eth-account key), calls again with _meta["x402/payment"], and checks the receipt in
_meta["x402/payment-response"] and the ZIP's sha256 against the sheet.

Runs in its own venv (requirements-mcp2.txt): the x402 SDK's own MCP wrapper, used by
x402_mcp.py, still reads the attribute names of mcp 1.x.

Usage: python mcp2_python.py http://127.0.0.1:PORT
"""

import asyncio
import hashlib
import json
import sys

import httpx
from eth_account import Account
from mcp import Client
from x402 import x402Client
from x402.mechanisms.evm.exact import ExactEvmScheme
from x402.mechanisms.evm.signers import EthAccountSigner
from x402.schemas import PaymentRequired

from x402_httpx import DEV_KEY, Checks

MODERN = "2026-07-28"
MODES = [("auto", MODERN), (MODERN, MODERN), ("legacy", "2025-11-25")]


def structured(result) -> dict:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def buy(checks: Checks, http: httpx.AsyncClient, base: str, mode: str, expected: str, slug: str) -> None:
    where = f"/mcp {mode}"
    account = Account.from_key(DEV_KEY)
    payer = x402Client()
    payer.register("eip155:*", ExactEvmScheme(signer=EthAccountSigner(account)))
    sheet = (await http.get(f"{base}/estudio/{slug}/ficha")).json()
    async with Client(f"{base}/mcp", mode=mode) as client:
        checks.equal(client.protocol_version, expected, f"{where}: negotiated revision")
        names = [tool.name for tool in (await client.list_tools()).tools]
        checks.ok("comprar_estudio" in names and "ver_ficha" in names, f"{where}: tools/list", names)
        free = await client.call_tool("ver_ficha", {"slug": slug})
        checks.equal((free.is_error, structured(free).get("slug")), (False, slug), f"{where}: ver_ficha")
        unpaid = await client.call_tool("comprar_estudio", {"slug": slug})
        checks.equal(unpaid.is_error, True, f"{where}: unpaid comprar_estudio is a tool error")
        required = PaymentRequired.model_validate(structured(unpaid))
        payload = await payer.create_payment_payload(required)
        meta = {"x402/payment": payload.model_dump(by_alias=True, exclude_none=True)}
        paid = await client.call_tool("comprar_estudio", {"slug": slug}, meta=meta)
        if not checks.equal(paid.is_error, False, f"{where}: paid comprar_estudio succeeds"):
            print(paid.content[0].text[:400], file=sys.stderr)
            return
        receipt = (paid.meta or {}).get("x402/payment-response") or {}
        checks.equal(receipt.get("success"), True, f"{where}: receipt in _meta")
        checks.equal((receipt.get("payer") or "").lower(), account.address.lower(), f"{where}: receipt payer")
        study = structured(paid)
        checks.equal(study.get("estudio"), slug, f"{where}: delivered study")
        link = study["acceso"]["descargas"]["zip"]["url"]
    data = (await http.get(link)).content
    checks.equal(hashlib.sha256(data).hexdigest(), sheet["archivos"]["zip"]["sha256"], f"{where}: ZIP sha256")


async def main(base: str) -> int:
    checks = Checks("mcp-python-2")
    async with httpx.AsyncClient(timeout=60) as http:
        slugs = [e["slug"] for e in (await http.get(f"{base}/catalogo")).json()["estudios"]]
        for index, (mode, expected) in enumerate(MODES):
            try:
                await buy(checks, http, base, mode, expected, slugs[(index + 3) % len(slugs)])
            except Exception as error:  # one failed check, with the reason, then the next mode
                checks.ok(False, f"/mcp {mode}", repr(error))
    print(f"{checks.name}: {checks.passed} checks passed, {checks.failed} failed")
    return 0 if checks.failed == 0 and checks.passed > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1].rstrip("/"))))
