"""The official MPP client for Python (pympp, pinned in requirements.txt) buying one study view
from the gate with only the ``evm`` charge method configured for the local chain: no x402 client
is involved, so a purchase can only happen through the gate's ``WWW-Authenticate: Payment``
challenge.

env: ESTUDIO_URL, EVM_PRIVATE_KEY, CHAIN_ID, TOKEN (the USDC contract), TOKEN_NAME, TOKEN_VERSION.
Prints one JSON line: {status, receipt, paymentResponse, nombre, refusal, failures, challenges}.
"""

import asyncio
import json
import os

from eth_account import Account
from mpp.client import Mpp
from mpp.methods.evm import client as evm


async def main() -> None:
    method = evm.charge(
        currency=os.environ["TOKEN"],
        account=Account.from_key(os.environ["EVM_PRIVATE_KEY"]),
        chain_id=int(os.environ["CHAIN_ID"]),
        decimals=6,
        authorization={"name": os.environ["TOKEN_NAME"], "version": os.environ["TOKEN_VERSION"]},
        max_amount="1",
    )
    failures = []
    async with Mpp(methods=[method]) as mpp:
        # Why a 402 was not paid, for the test's message.
        mpp.on_payment_failed(lambda payload: failures.append(repr(payload["error"])))
        response = await mpp.fetch(os.environ["ESTUDIO_URL"])
        text = response.text
        try:
            body = json.loads(text)
        except ValueError:
            body = {}
        nombre = body.get("nombre")
        print(
            json.dumps(
                {
                    "status": response.status_code,
                    "receipt": response.headers.get("payment-receipt"),
                    "paymentResponse": response.headers.get("payment-response") is not None,
                    "nombre": nombre,
                    "refusal": None
                    if response.status_code == 200
                    else {key: body.get(key) for key in ("type", "error", "mensaje")},
                    "failures": failures,
                    "challenges": response.headers.get_list("www-authenticate"),
                }
            )
        )


asyncio.run(main())
