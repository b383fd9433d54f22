/**
 * Writes fixtures/sweep/payments/trajectory.json: the sweep suite's incident investigation, as an agent left it.
 *
 * Every tool result is built from its evidence units, so the unit boundaries are known by construction;
 * the script prints them with the file's SHA-256 for fixtures/sweep/payments/case.json.
 *
 * Run: deno run --allow-write=fixtures/sweep scripts/gen_sweep_fixture.ts
 *
 * @module
 */

const SYSTEM_PROMPT =
  `You are Relay, an autonomous site-reliability and coding agent working inside the checkout-platform monorepo.
You have shell access to a read-only production bastion (logs under /var/log, the deploy history, the PayStream gateway CLI \`gwctl\`) and to a checkout of the repository at /srv/checkout-platform.

Tools:
- read_file(path): returns the file's contents.
- shell(command): runs a command on the bastion and returns stdout and stderr.

Rules:
- Investigate before you conclude. Quote the exact evidence (log lines, commit ids, config keys, values) that supports each claim.
- Never change production state: no deploys, no restarts, no writes outside /tmp.
- Payments are money: when a fix touches retries or charging, follow the team's runbook and state the idempotency guarantees explicitly.
- When you are done, report the root cause, the impact, and a proposed fix.`;

const USER_TASK =
  `Since this afternoon's deploy of payments-api we're getting support tickets about customers charged twice for one order, and the payments dashboard shows a spike of gateway timeouts. Some customers whose cards were declined were also told "payment provider unavailable, try again later". Please investigate: find what changed, what is going on between payments-api and the PayStream gateway, and what the fix should be. Don't touch production.`;

// ---- tool result 1: service log grep (3 units) -------------------------------------------------

const LOG_ROUTINE =
  `2026-11-18T13:55:02.114Z INFO  payments-api[pid=41]  charge.start order=ord_6HB20X amount=42.90 currency=EUR customer=cus_Q81NZ4 release=v2.13.2
2026-11-18T13:55:03.407Z INFO  payments-api[pid=41]  charge.ok order=ord_6HB20X charge_id=ch_3Nd01aK attempt=1 latency_ms=1293
2026-11-18T13:56:20.553Z INFO  payments-api[pid=41]  charge.start order=ord_6HB2C7 amount=129.00 currency=EUR customer=cus_7TQ3LD release=v2.13.2
2026-11-18T13:56:22.871Z INFO  payments-api[pid=41]  charge.ok order=ord_6HB2C7 charge_id=ch_3Nd01cX attempt=1 latency_ms=2318
2026-11-18T13:57:05.002Z INFO  payments-api[pid=42]  reconcile.run window=13:45-13:55 charges=61 refunds=2 mismatches=0
2026-11-18T13:59:30.276Z INFO  payments-api[pid=43]  charge.start order=ord_6HB2K9 amount=9.99 currency=EUR customer=cus_X1VB3R release=v2.13.2
2026-11-18T13:59:31.398Z WARN  payments-api[pid=43]  charge.declined order=ord_6HB2K9 code=card_declined decline_code=expired_card status=402 attempt=1
2026-11-18T14:01:48.733Z INFO  payments-api[pid=41]  shutdown signal=SIGTERM reason="rolling deploy" inflight=0
2026-11-18T14:02:09.115Z INFO  payments-api[pid=57]  boot release=v2.14.0 node=v22.11.0 config=/etc/payments-api/payments.yaml
2026-11-18T14:02:09.388Z INFO  payments-api[pid=57]  gateway.client ready base_url=https://api.paystream.io/v2 pool=32
2026-11-18T14:02:31.904Z INFO  payments-api[pid=58]  boot release=v2.14.0 node=v22.11.0 config=/etc/payments-api/payments.yaml
2026-11-18T14:02:52.467Z INFO  payments-api[pid=59]  boot release=v2.14.0 node=v22.11.0 config=/etc/payments-api/payments.yaml
2026-11-18T14:03:14.020Z INFO  payments-api[pid=57]  charge.start order=ord_6HB31B amount=24.00 currency=EUR customer=cus_8YRW0C release=v2.14.0
2026-11-18T14:03:15.188Z INFO  payments-api[pid=57]  charge.ok order=ord_6HB31B charge_id=ch_3Nd02aP attempt=1 latency_ms=1168
`;

const LOG_TIMEOUTS =
  `2026-11-18T14:04:40.311Z INFO  payments-api[pid=58]  charge.start order=ord_7Q2K91 amount=89.00 currency=EUR customer=cus_5HTE2M release=v2.14.0
2026-11-18T14:04:41.814Z WARN  payments-api[pid=58]  charge.attempt_failed order=ord_7Q2K91 attempt=1 code=ETIMEDOUT timeout_ms=1500 host=api.paystream.io idempotency_key=4c1e9f0a-77b2-4d0e-9a51-0f3c2be1d7a4
2026-11-18T14:04:42.016Z INFO  payments-api[pid=58]  charge.retry order=ord_7Q2K91 attempt=2 delay_ms=200
2026-11-18T14:04:43.203Z INFO  payments-api[pid=58]  charge.ok order=ord_7Q2K91 charge_id=ch_3Nd02hT attempt=2 latency_ms=1187 idempotency_key=b83d2c11-05fe-4f7a-8c9e-6e2a41d0c5b9
2026-11-18T14:06:02.550Z INFO  payments-api[pid=59]  charge.start order=ord_7Q2M04 amount=212.40 currency=EUR customer=cus_J7PQ1A release=v2.14.0
2026-11-18T14:06:04.052Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q2M04 attempt=1 code=ETIMEDOUT timeout_ms=1500 host=api.paystream.io idempotency_key=e02a6b3d-3c4f-4b8e-b1d7-5a9e0c6f2e18
2026-11-18T14:06:04.254Z INFO  payments-api[pid=59]  charge.retry order=ord_7Q2M04 attempt=2 delay_ms=200
2026-11-18T14:06:05.756Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q2M04 attempt=2 code=ETIMEDOUT timeout_ms=1500 host=api.paystream.io idempotency_key=71fd0e94-2a8b-4c53-9e06-d4b7a3e1f250
2026-11-18T14:06:05.958Z INFO  payments-api[pid=59]  charge.retry order=ord_7Q2M04 attempt=3 delay_ms=200
2026-11-18T14:06:07.102Z INFO  payments-api[pid=59]  charge.ok order=ord_7Q2M04 charge_id=ch_3Nd02kD attempt=3 latency_ms=1144 idempotency_key=9a6c5e27-b0d1-4f38-a2e9-3c71f84d6b05
2026-11-18T14:09:17.480Z INFO  payments-api[pid=57]  charge.start order=ord_7Q2R66 amount=35.70 currency=EUR customer=cus_2WQZ8E release=v2.14.0
2026-11-18T14:09:18.982Z WARN  payments-api[pid=57]  charge.attempt_failed order=ord_7Q2R66 attempt=1 code=ETIMEDOUT timeout_ms=1500 host=api.paystream.io idempotency_key=0d8b4f61-9e2c-4a7d-8f15-b6c3e9a02d47
2026-11-18T14:09:19.184Z INFO  payments-api[pid=57]  charge.retry order=ord_7Q2R66 attempt=2 delay_ms=200
2026-11-18T14:09:20.297Z INFO  payments-api[pid=57]  charge.ok order=ord_7Q2R66 charge_id=ch_3Nd02qW attempt=2 latency_ms=1113 idempotency_key=c4e7a190-6d2b-4e85-b3f9-81a0d5c2e7f6
2026-11-18T14:15:05.006Z WARN  payments-api[pid=58]  reconcile.mismatch window=14:00-14:15 order=ord_7Q2K91 gateway_charges=ch_3Nd02gZ,ch_3Nd02hT local_charges=ch_3Nd02hT amount=89.00 kind=duplicate_charge
2026-11-18T14:15:05.007Z WARN  payments-api[pid=58]  reconcile.mismatch window=14:00-14:15 order=ord_7Q2M04 gateway_charges=ch_3Nd02jB,ch_3Nd02jR,ch_3Nd02kD local_charges=ch_3Nd02kD amount=212.40 kind=duplicate_charge
2026-11-18T14:15:05.007Z WARN  payments-api[pid=58]  reconcile.mismatch window=14:00-14:15 order=ord_7Q2R66 gateway_charges=ch_3Nd02pL,ch_3Nd02qW local_charges=ch_3Nd02qW amount=35.70 kind=duplicate_charge
2026-11-18T14:15:05.009Z ERROR payments-api[pid=58]  reconcile.run window=14:00-14:15 charges=58 refunds=1 mismatches=14 duplicate_charges=14 alert=PAY-DUPLICATE-CHARGES
`;

const LOG_DECLINES =
  `2026-11-18T14:21:33.640Z INFO  payments-api[pid=59]  charge.start order=ord_7Q3B18 amount=54.00 currency=EUR customer=cus_T4KD9S release=v2.14.0
2026-11-18T14:21:34.301Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q3B18 attempt=1 code=card_declined decline_code=insufficient_funds status=402
2026-11-18T14:21:34.503Z INFO  payments-api[pid=59]  charge.retry order=ord_7Q3B18 attempt=2 delay_ms=200
2026-11-18T14:21:35.122Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q3B18 attempt=2 code=card_declined decline_code=insufficient_funds status=402
2026-11-18T14:21:35.324Z INFO  payments-api[pid=59]  charge.retry order=ord_7Q3B18 attempt=3 delay_ms=200
2026-11-18T14:21:35.977Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q3B18 attempt=3 code=card_declined decline_code=insufficient_funds status=402
2026-11-18T14:21:36.179Z INFO  payments-api[pid=59]  charge.retry order=ord_7Q3B18 attempt=4 delay_ms=200
2026-11-18T14:21:36.790Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q3B18 attempt=4 code=card_declined decline_code=insufficient_funds status=402
2026-11-18T14:21:36.992Z INFO  payments-api[pid=59]  charge.retry order=ord_7Q3B18 attempt=5 delay_ms=200
2026-11-18T14:21:37.615Z WARN  payments-api[pid=59]  charge.attempt_failed order=ord_7Q3B18 attempt=5 code=card_declined decline_code=insufficient_funds status=402
2026-11-18T14:21:37.616Z ERROR payments-api[pid=59]  charge.failed order=ord_7Q3B18 error=GatewayUnavailableError message="charge failed after retries" cause=card_declined http_status=503 user_message="payment provider unavailable, try again later"
2026-11-18T14:22:10.048Z WARN  payments-api[pid=57]  gateway.risk_flag merchant=mer_CHK01 reason=repeated_declines order=ord_7Q3B18 attempts=5 window_s=4
`;

// ---- tool result 2: client module (1 unit) -----------------------------------------------------

const CLIENT_MODULE = `// src/gateway/paymentClient.js
// Thin client for the PayStream v2 charges API, plus the retry wrapper used by checkout.

import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { logger } from '../observability/logger.js';
import { GatewayError, GatewayUnavailableError } from './errors.js';

const log = logger.child({ component: 'gateway' });

const CHARGE_TIMEOUT_MS = 1500;
const MAX_ATTEMPTS = 5;
const RETRY_DELAY_MS = 200;

/**
 * Creates the low-level client. \`charge\` makes exactly one HTTP attempt.
 * Errors are GatewayError instances with \`code\` (e.g. "ETIMEDOUT", "gateway_unavailable",
 * "card_declined") and \`status\` (the HTTP status, when the gateway answered).
 */
export function createGatewayClient(config, http) {
  return {
    async charge(request, { idempotencyKey, timeoutMs }) {
      const res = await http.post(\`\${config.gateway.base_url}/charges\`, {
        json: {
          amount: request.amount,
          currency: request.currency,
          customer: request.customerId,
          metadata: { order_id: request.orderId },
        },
        headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
        timeout: timeoutMs,
      });
      if (res.status >= 400) {
        throw new GatewayError(res.body.error.message, { code: res.body.error.code, status: res.status });
      }
      return res.body;
    },
    sleep(ms) {
      return delay(ms);
    },
  };
}

/** Charges an order, retrying transient failures. Introduced in v2.14.0. */
export async function chargeWithRetry(client, request) {
  let lastError;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const charge = await client.charge(request, {
        idempotencyKey: randomUUID(),
        timeoutMs: CHARGE_TIMEOUT_MS,
      });
      log.info({ orderId: request.orderId, chargeId: charge.id, attempt }, 'charge.ok');
      return charge;
    } catch (err) {
      lastError = err;
      log.warn({ orderId: request.orderId, attempt, code: err.code }, 'charge.attempt_failed');
      await client.sleep(RETRY_DELAY_MS);
    }
  }
  throw new GatewayUnavailableError('charge failed after retries', { cause: lastError });
}
`;

// ---- tool result 3: config (1 unit) ------------------------------------------------------------

const CONFIG_FILE =
  `# /etc/payments-api/payments.yaml (rendered from deploy/config/payments.yaml.tmpl, release v2.14.0)
service:
  name: payments-api
  port: 8443
  shutdown_grace_s: 20

gateway:
  provider: paystream
  base_url: \${PAYSTREAM_BASE_URL}
  merchant_id: mer_CHK01
  connect_timeout_ms: 500
  # End-to-end budget for one POST /charges. PayStream p99 is ~2.6 s; keep headroom.
  charge_timeout_ms: 4000
  pool_size: 32

retry:
  # Total attempts for one logical charge, including the first one.
  max_attempts: 4
  backoff_base_ms: 250
  backoff_multiplier: 2
  backoff_max_ms: 2000
  # Only these error codes may be retried. Everything else is final for the order.
  retry_on: [ETIMEDOUT, ECONNRESET, gateway_unavailable, rate_limited]

reconcile:
  interval_s: 900
  alert_on_duplicates: true
`;

// ---- tool result 4: deploy and commit log (1 unit) ---------------------------------------------

const DEPLOY_LOG = `$ deployctl history payments-api --env prod --limit 4
DEPLOYED AT (UTC)     RELEASE   COMMIT    BY             STATUS
2026-11-18 14:01:40   v2.14.0   a91c3f7   m.okafor       succeeded (rolling, 3/3 pods)
2026-11-12 09:15:02   v2.13.2   e3b9a12   l.brandt       succeeded (rolling, 3/3 pods)
2026-11-05 16:40:57   v2.13.1   7c52d0e   l.brandt       succeeded (rolling, 3/3 pods)
2026-10-29 11:02:13   v2.13.0   f18a6b4   s.ivanova      succeeded (rolling, 3/3 pods)

$ git -C /srv/checkout-platform log --oneline --stat e3b9a12..a91c3f7 -- services/payments-api
a91c3f7 refactor(gateway): move charge retries into paymentClient, drop per-call options plumbing
 services/payments-api/src/gateway/paymentClient.js   | 58 +++++++++++++++++++++----------
 services/payments-api/src/checkout/placeOrder.js     | 21 ++---------
 services/payments-api/src/gateway/retry.js           | 47 ------------------------
 3 files changed, 44 insertions(+), 82 deletions(-)
5d2e8b0 docs(payments): link the gateway runbook from the service README
 services/payments-api/README.md                      |  2 ++
 1 file changed, 2 insertions(+)
c07f4e1 chore(deps): bump undici from 6.19.8 to 6.21.0
 services/payments-api/package.json                   |  2 +-
 services/payments-api/package-lock.json              | 12 ++++++------
 2 files changed, 7 insertions(+), 7 deletions(-)
`;

// ---- tool result 5: runbook (2 units) -----------------------------------------------------------

const RUNBOOK_GENERAL = `# PayStream gateway runbook (payments-api)

Owner: payments-platform team (#payments-oncall). Escalation: the PayStream status page first, then their
support line for merchant mer_CHK01 (ticket priority P1 for any duplicate-charge incident).

## Dashboards and alerts

- **Gateway latency**: \`payments.gateway.charge.latency\` (p50/p95/p99 by pod). PayStream's normal p99 is
  2.2–2.6 s for card charges; 3DS flows are slower and are not retried by payments-api.
- **PAY-DUPLICATE-CHARGES**: raised by the reconcile job when one order has more than one captured charge at
  the gateway. Every duplicate must be refunded through \`gwctl refund --charge <id> --reason duplicate\`
  after a second engineer confirms it.
- **PAY-DECLINE-RATE**: decline ratio above 12 % over 10 minutes. Usually an issuer outage or card testing;
  check \`gateway.risk_flag\` log lines before paging anyone.

## Rollback

Use \`deployctl rollback payments-api --env prod --to <release>\`. A rollback does not refund anything:
open the reconcile report for the affected window and work through the duplicates list.

`;

const RUNBOOK_RETRIES = `## Retries and idempotency (PAY-212)

A charge is money movement: a retry must never be able to create a second charge. The gateway guarantees
this only through the \`Idempotency-Key\` request header: two requests with the same key and body return
the same charge, even when the first one timed out on our side after the gateway had already captured it.

Rules:

1. One key per logical charge, derived from the order (\`charge-<orderId>\`), reused unchanged on every
   retry of that charge. Never generate a key per attempt.
2. Use the configured timeout (\`gateway.charge_timeout_ms\`) for every attempt; a client timeout shorter
   than the gateway's p99 turns slow successes into retries.
3. Retry only the codes in \`retry.retry_on\`. A decline (\`card_declined\`, \`invalid_request\`, ...) is final:
   surface the gateway error unchanged so checkout can show the decline reason.
4. At most \`retry.max_attempts\` attempts in total, with exponential backoff between them.

Recommended shape, with the prod values of payments.yaml filled in (keep them in sync with the config):

\`\`\`js
const CHARGE_TIMEOUT_MS = 4000; // gateway.charge_timeout_ms
const MAX_ATTEMPTS = 4; // retry.max_attempts
const RETRY_ON = ["ETIMEDOUT", "ECONNRESET", "gateway_unavailable", "rate_limited"]; // retry.retry_on
const BACKOFF_BASE_MS = 250; // retry.backoff_base_ms
const BACKOFF_MULTIPLIER = 2; // retry.backoff_multiplier
const BACKOFF_MAX_MS = 2000; // retry.backoff_max_ms

async function chargeWithRetry(client, request) {
  const idempotencyKey = \`charge-\${request.orderId}\`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.charge(request, { idempotencyKey, timeoutMs: CHARGE_TIMEOUT_MS });
    } catch (err) {
      if (!RETRY_ON.includes(err.code) || attempt >= MAX_ATTEMPTS) throw err;
      await client.sleep(Math.min(BACKOFF_BASE_MS * BACKOFF_MULTIPLIER ** (attempt - 1), BACKOFF_MAX_MS));
    }
  }
}
\`\`\`
`;

// ---- tool result 6: upstream gateway log (2 units) ---------------------------------------------

const GATEWAY_ROUTINE =
  `$ gwctl logs --merchant mer_CHK01 --endpoint "POST /v2/charges" --since 2026-11-18T14:00:00Z --until 2026-11-18T14:20:00Z --fields time,request_id,order_id,idempotency_key,status,latency_ms,outcome
host: api.paystream.io   region: eu-west-1   merchant: mer_CHK01   rows: 13
TIME (UTC)                REQUEST ID          ORDER         IDEMPOTENCY KEY                        STATUS  LATENCY  OUTCOME
2026-11-18 14:00:12.402   req_9fK2mQ0a1       ord_6HB2Z8    3f0c6d2e-1b7a-4e59-9c28-7ad4e51b0f63   200     1184 ms  captured ch_3Nd01zR
2026-11-18 14:01:22.135   req_9fK2mQ0c2       ord_6HB309    a5d91e3c-70b4-4f2a-8d6e-9b13c4f7e025   402      611 ms  declined (insufficient_funds)
2026-11-18 14:03:14.031   req_9fK2mQ0d9       ord_6HB31B    6b3e0f7a-92c5-4d18-b7a4-e0d2c58f1936   200     1166 ms  captured ch_3Nd02aP
2026-11-18 14:03:58.660   req_9fK2mQ0e4       ord_6HB31M    d27c4a90-5e1f-4b36-a8d2-71f0e9b3c564   200     1290 ms  captured ch_3Nd02bF
2026-11-18 14:08:02.884   req_9fK2mQ0m1       ord_6HB33F    7ac0f5b2-6e94-4d1c-b3e8-05d9a2c7f418   200     1339 ms  captured ch_3Nd02nS
2026-11-18 14:13:09.126   req_9fK2mQ0w8       ord_6HB36D    2d9a6c03-b5e8-4f17-8c4a-e16f07b3d295   200     1221 ms  captured ch_3Nd02vK
`;

const GATEWAY_CORRELATED =
  `2026-11-18 14:04:40.322   req_9fK2mQ0f5       ord_7Q2K91    4c1e9f0a-77b2-4d0e-9a51-0f3c2be1d7a4   499     2306 ms  captured ch_3Nd02gZ (client_closed_request at 1500 ms)
2026-11-18 14:04:42.020   req_9fK2mQ0g1       ord_7Q2K91    b83d2c11-05fe-4f7a-8c9e-6e2a41d0c5b9   200     1183 ms  captured ch_3Nd02hT
2026-11-18 14:06:02.561   req_9fK2mQ0h8       ord_7Q2M04    e02a6b3d-3c4f-4b8e-b1d7-5a9e0c6f2e18   499     2541 ms  captured ch_3Nd02jB (client_closed_request at 1500 ms)
2026-11-18 14:06:04.258   req_9fK2mQ0i3       ord_7Q2M04    71fd0e94-2a8b-4c53-9e06-d4b7a3e1f250   499     2187 ms  captured ch_3Nd02jR (client_closed_request at 1500 ms)
2026-11-18 14:06:05.962   req_9fK2mQ0j0       ord_7Q2M04    9a6c5e27-b0d1-4f38-a2e9-3c71f84d6b05   200     1140 ms  captured ch_3Nd02kD
2026-11-18 14:09:17.491   req_9fK2mQ0p2       ord_7Q2R66    0d8b4f61-9e2c-4a7d-8f15-b6c3e9a02d47   499     1938 ms  captured ch_3Nd02pL (client_closed_request at 1500 ms)
2026-11-18 14:09:19.188   req_9fK2mQ0q7       ord_7Q2R66    c4e7a190-6d2b-4e85-b3f9-81a0d5c2e7f6   200     1109 ms  captured ch_3Nd02qW
note: 499 = client_closed_request: the client disconnected before the response; the charge was still processed.
note: no request in this window reused an idempotency key; p99 latency 14:00-14:20 = 2.54 s (normal).
`;

interface ToolResult {
  toolCallId: string;
  units: string[];
}

const TOOL_RESULTS: ToolResult[] = [
  { toolCallId: "call_01_logs", units: [LOG_ROUTINE, LOG_TIMEOUTS, LOG_DECLINES] },
  { toolCallId: "call_02_client", units: [CLIENT_MODULE] },
  { toolCallId: "call_03_config", units: [CONFIG_FILE] },
  { toolCallId: "call_04_deploys", units: [DEPLOY_LOG] },
  { toolCallId: "call_05_runbook", units: [RUNBOOK_GENERAL, RUNBOOK_RETRIES] },
  { toolCallId: "call_06_gateway", units: [GATEWAY_ROUTINE, GATEWAY_CORRELATED] },
];

function call(id: string, name: string, args: Record<string, string>) {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

function toolMessage(index: number) {
  const result = TOOL_RESULTS[index];
  return { role: "tool", tool_call_id: result.toolCallId, content: result.units.join("") };
}

const messages = [
  { role: "system", content: SYSTEM_PROMPT },
  { role: "user", content: USER_TASK },
  {
    role: "assistant",
    content:
      "I'll start with the payments-api logs around the deploy to see how the timeouts and charges line up.",
    tool_calls: [
      call("call_01_logs", "shell", {
        command:
          "cd /var/log/payments-api && grep -h -E 'charge\\.|reconcile\\.|boot|shutdown|gateway\\.' app.log.1 app.log | awk '$1 >= \"2026-11-18T13:55\"' | grep -v -E 'charge\\.(start|ok) order=ord_6HB3[3-9]' | head -n 60",
      }),
    ],
  },
  toolMessage(0),
  {
    role: "assistant",
    content:
      "The timeouts start right after v2.14.0 rolled out, every retry carries a new idempotency key, and declines are retried five times. Reading the gateway client and the rendered config.",
    tool_calls: [
      call("call_02_client", "read_file", {
        path: "/srv/checkout-platform/services/payments-api/src/gateway/paymentClient.js",
      }),
      call("call_03_config", "read_file", { path: "/etc/payments-api/payments.yaml" }),
    ],
  },
  toolMessage(1),
  toolMessage(2),
  {
    role: "assistant",
    content:
      "The client hard-codes its timeout and retry settings instead of using the config. Checking which commit introduced this and what the runbook prescribes for retries.",
    tool_calls: [
      call("call_04_deploys", "shell", {
        command:
          "deployctl history payments-api --env prod --limit 4 && git -C /srv/checkout-platform log --oneline --stat e3b9a12..a91c3f7 -- services/payments-api",
      }),
      call("call_05_runbook", "read_file", {
        path: "/srv/checkout-platform/docs/runbooks/paystream-gateway.md",
      }),
    ],
  },
  toolMessage(3),
  toolMessage(4),
  {
    role: "assistant",
    content:
      "Now the gateway's side of the same window, to confirm what happened to the requests that timed out on our side.",
    tool_calls: [
      call("call_06_gateway", "shell", {
        command:
          'gwctl logs --merchant mer_CHK01 --endpoint "POST /v2/charges" --since 2026-11-18T14:00:00Z --until 2026-11-18T14:20:00Z --fields time,request_id,order_id,idempotency_key,status,latency_ms,outcome',
      }),
    ],
  },
  toolMessage(5),
];

const text = JSON.stringify(messages, null, 2) + "\n";
const bytes = new TextEncoder().encode(text);
await Deno.writeFile(new URL("../fixtures/sweep/payments/trajectory.json", import.meta.url), bytes);
const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");

let unitNumber = 0;
const boundaries: string[] = [];
messages.forEach((message, messageIndex) => {
  if (message.role !== "tool") return;
  const result = TOOL_RESULTS.find((r) =>
    r.toolCallId === (message as { tool_call_id: string }).tool_call_id
  )!;
  let start = 0;
  for (const unit of result.units) {
    unitNumber += 1;
    const id = `u${String(unitNumber).padStart(2, "0")}`;
    boundaries.push(
      `{ id: "${id}", message_index: ${messageIndex}, start: ${start}, end: ${start + unit.length} }`,
    );
    start += unit.length;
  }
});
console.log(`sha256: ${hash}`);
console.log(boundaries.join(",\n"));
