"""x402 Python client: the official `x402` SDK (httpx transport, EVM signer from a local
eth-account key) buys studies in both views, decodes PAYMENT-RESPONSE and downloads the ZIP
through the signed link, checking its sha256 against the study sheet.

Usage: python x402_httpx.py http://127.0.0.1:PORT [max_studies]
"""

import asyncio
import hashlib
import sys

import httpx
from eth_account import Account
from x402 import x402Client
from x402.http import decode_payment_response_header
from x402.http.clients.httpx import x402HttpxClient
from x402.mechanisms.evm.exact import ExactEvmScheme
from x402.mechanisms.evm.signers import EthAccountSigner

# Public Anvil/Hardhat development key #0: never holds real funds.
DEV_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"


class Checks:
    """Counts checks; a failure prints what was expected and what came."""

    def __init__(self, name: str) -> None:
        self.name, self.passed, self.failed = name, 0, 0

    def ok(self, condition: bool, what: str, detail: object = None) -> bool:
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"  FALLA {self.name}: {what}" + ("" if detail is None else f" ({detail})"), file=sys.stderr)
        return condition

    def equal(self, actual: object, expected: object, what: str) -> bool:
        return self.ok(actual == expected, what, f"obtenido {actual!r}, esperado {expected!r}")


async def buy(checks: Checks, paying: httpx.AsyncClient, plain: httpx.AsyncClient, base: str, slug: str, view: str, sheet: dict, payer: str) -> None:
    response = await paying.get(f"{base}/estudio/{slug}", params={"vista": view})
    if not checks.equal(response.status_code, 200, f"{slug} {view}: status after paying"):
        print(response.text, file=sys.stderr)
        return
    receipt = decode_payment_response_header(response.headers["PAYMENT-RESPONSE"])
    checks.equal(receipt.success, True, f"{slug} {view}: PAYMENT-RESPONSE success")
    checks.equal(receipt.network, "eip155:84532", f"{slug} {view}: settled network")
    checks.ok(receipt.transaction.startswith("0x") and len(receipt.transaction) == 66, f"{slug} {view}: transaction hash", receipt.transaction)
    checks.equal((receipt.payer or "").lower(), payer.lower(), f"{slug} {view}: payer")
    body = response.json()
    checks.equal(body["estudio"], slug, f"{slug} {view}: estudio")
    checks.equal(body["vista"], view, f"{slug} {view}: vista")
    checks.ok(isinstance(body.get("resumen" if view == "resumen" else "paquete"), dict), f"{slug} {view}: content delivered")
    link = body["acceso"]["descargas"]["zip"]["url"]
    download = await plain.get(link)
    checks.equal(download.status_code, 200, f"{slug} {view}: ZIP download status")
    checks.equal(len(download.content), int(download.headers["content-length"]), f"{slug} {view}: ZIP length")
    checks.equal(hashlib.sha256(download.content).hexdigest(), sheet["archivos"]["zip"]["sha256"], f"{slug} {view}: ZIP sha256 against the sheet")
    checks.equal(download.content[:4], b"PK\x03\x04", f"{slug} {view}: ZIP magic")


async def main(base: str, max_studies: int) -> int:
    checks = Checks("x402-python")
    account = Account.from_key(DEV_KEY)
    client = x402Client()
    client.register("eip155:*", ExactEvmScheme(signer=EthAccountSigner(account)))
    async with httpx.AsyncClient(timeout=60) as plain, x402HttpxClient(client, timeout=60) as paying:
        catalog = (await plain.get(f"{base}/catalogo")).json()
        slugs = [e["slug"] for e in catalog["estudios"]][:max_studies]
        checks.ok(len(slugs) >= min(2, max_studies), "catalog lists at least two studies", slugs)
        for slug in slugs:
            sheet = (await plain.get(f"{base}/estudio/{slug}/ficha")).json()
            for view in ("completo", "resumen"):
                try:
                    await buy(checks, paying, plain, base, slug, view, sheet, account.address)
                except Exception as error:  # one failed purchase must not hide the others
                    checks.ok(False, f"{slug} {view}", repr(error))
    print(f"{checks.name}: {checks.passed} checks passed, {checks.failed} failed")
    return 0 if checks.failed == 0 and checks.passed > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1].rstrip("/"), int(sys.argv[2]) if len(sys.argv) > 2 else 3)))
