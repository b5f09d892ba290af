// The reference x402 seller for the peer benchmark: @x402/express with the same offer as the gate
// (price "$0.99" = 990000 USDC units on Base Sepolia, the same payTo), verifying and settling
// through the same local facilitator over HTTP, plus the same free catalog JSON. A paid request
// gets the study's package file when STUDIES names their folder (dist/private/descargas: the
// bytes the gate's full view delivers), else a small stub.
//   PORT=… FACILITATOR_URL=http://127.0.0.1:… PAY_TO=0x… CATALOG=dist/public/catalogo.json \
//     [STUDIES=dist/private/descargas] node peer-server.mjs
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { HTTPFacilitatorClient } from "@x402/core/server";

const { PORT, FACILITATOR_URL, PAY_TO, CATALOG, STUDIES } = process.env;
if (!PORT || !FACILITATOR_URL || !PAY_TO || !CATALOG) {
  console.error("peer-server: PORT, FACILITATOR_URL, PAY_TO and CATALOG are required");
  process.exit(2);
}
const catalog = readFileSync(CATALOG);

const app = express();
const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: FACILITATOR_URL })).register(
  "eip155:84532",
  new ExactEvmScheme(),
);
app.use(
  paymentMiddleware(
    {
      "GET /estudio/:slug": {
        accepts: { scheme: "exact", price: "$0.99", network: "eip155:84532", payTo: PAY_TO, maxTimeoutSeconds: 300 },
        description: "Estudio de visibilidad en IA",
        mimeType: "application/json",
      },
    },
    resourceServer,
  ),
);
app.get("/catalogo", (_req, res) => {
  res.type("application/json").send(catalog);
});
app.get("/estudio/:slug", async (req, res) => {
  if (!STUDIES) return res.json({ estudio: req.params.slug });
  // A 404 is not settled: the middleware settles only after a successful answer.
  if (!/^[a-z0-9-]+$/.test(req.params.slug)) return res.sendStatus(404);
  try {
    res.type("application/json").send(await readFile(join(STUDIES, `${req.params.slug}.json`)));
  } catch {
    res.sendStatus(404);
  }
});
app.listen(Number(PORT), "127.0.0.1", () => console.log(`peer-server: http://127.0.0.1:${PORT}`));
