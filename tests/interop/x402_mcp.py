"""x402 Python over MCP: the official `x402` SDK's MCP client (x402.mcp.x402MCPSession) wraps an
`mcp` SDK ClientSession on /mcp and buys a study through comprar_estudio: it reads the
PaymentRequired from structuredContent, signs with a local eth-account key, retries with
_meta["x402/payment"] and extracts the receipt from _meta["x402/payment-response"].

Usage: python x402_mcp.py http://127.0.0.1:PORT
"""

import asyncio
import hashlib
import json
import sys

import httpx
from eth_account import Account
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from x402 import x402Client
from x402.mcp import x402MCPSession
from x402.mechanisms.evm.exact import ExactEvmScheme
from x402.mechanisms.evm.signers import EthAccountSigner

from x402_httpx import DEV_KEY, Checks


async def main(base: str) -> int:
    checks = Checks("x402-python-mcp")
    account = Account.from_key(DEV_KEY)
    payer = x402Client()
    payer.register("eip155:*", ExactEvmScheme(signer=EthAccountSigner(account)))
    async with httpx.AsyncClient(timeout=60) as http:
        slugs = [e["slug"] for e in (await http.get(f"{base}/catalogo")).json()["estudios"]]
        slug = slugs[-1]
        sheet = (await http.get(f"{base}/estudio/{slug}/ficha")).json()
        async with streamablehttp_client(f"{base}/mcp") as (read, write, _), ClientSession(read, write) as session:
            mcp = x402MCPSession(session, payer)
            await mcp.initialize()
            names = [t.name for t in (await mcp.list_tools()).tools]
            checks.ok("comprar_estudio" in names, "tools/list offers comprar_estudio", names)
            free = await mcp.call_tool("ver_ficha", {"slug": slug})
            checks.equal((free.is_error, free.payment_made), (False, False), "a free tool is not paid for")
            result = await mcp.call_tool("comprar_estudio", {"slug": slug, "vista": "completo"})
            checks.equal(result.payment_made, True, "the SDK paid")
            checks.equal(result.is_error, False, "comprar_estudio succeeded")
            receipt = result.payment_response
            checks.ok(receipt is not None and receipt.success, "receipt from _meta[\"x402/payment-response\"]", receipt)
            checks.equal(getattr(receipt, "network", None), "eip155:84532", "receipt network")
            checks.equal((getattr(receipt, "payer", "") or "").lower(), account.address.lower(), "receipt payer")
            study = result.raw_result.structuredContent or json.loads(result.content[0].text)
            checks.equal(study.get("estudio"), slug, "delivered study")
            checks.ok(len(study.get("paquete", {}).get("respuestas", [])) > 0, "the full view carries every answer")
            link = study["acceso"]["descargas"]["zip"]["url"]
        data = (await http.get(link)).content
        checks.equal(hashlib.sha256(data).hexdigest(), sheet["archivos"]["zip"]["sha256"], "ZIP sha256 against the sheet")
    print(f"{checks.name}: {checks.passed} checks passed, {checks.failed} failed")
    return 0 if checks.failed == 0 and checks.passed > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1].rstrip("/"))))
