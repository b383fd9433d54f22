/**
 * What runs INSIDE the repair's `node:vm` realm: the client handed to the repair and the driver calling it
 * once per order. Self-contained, as its source text is evaluated in the realm. Every call it reports is a
 * claim the host replays on its own gateway, so tampering can only fail the check.
 * @module
 */

interface ReplicaGateway {
  readonly orders: readonly Record<string, unknown>[];
  begin(index: number): string | null;
  charge(call: { idempotencyKey: unknown; timeoutMs: unknown }): {
    ok: boolean;
    value?: unknown;
    error?: {
      message: string;
      code: string;
      status: number | null;
      declineCode?: string;
      token: number;
    };
  };
  sleep(ms: unknown): void;
  end(end: unknown): string | null;
}

/** The driver left in the realm (frozen): calls `repair(client, request)` once per order, in order. */
interface RealmDriver {
  runAll(repair: unknown): Promise<void>;
}

/**
 * The realm's client and driver over its `gateway` replica; `bridge` sends one JSON line to the host.
 * Strings are cut at `maxText`; after `maxSleeps` sleeps or a call-limit refusal, calls are answered locally.
 */
export function createRealmDriver(
  bridge: (message: string) => void,
  gateway: ReplicaGateway,
  maxText: number,
  maxSleeps: number,
): RealmDriver {
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const assign = Object.assign;
  const freeze = Object.freeze;
  const ErrorType = Error;
  const isFinite = Number.isFinite;
  const toText = String;
  const orders = gateway.orders;
  const gatewayErrors: { error: unknown; token: number }[] = [];
  let sleeps = 0;
  let refused: unknown = null;

  type Scalar = string | number | boolean | null;
  function cut(text: string): string {
    return text.length > maxText ? text.slice(0, maxText) : text;
  }
  function plain(value: unknown): Scalar {
    if (value === null || value === undefined) return null;
    if (typeof value === "string") return cut(value);
    if (typeof value === "boolean") return value;
    if (typeof value === "number") return isFinite(value) ? value : toText(value);
    return "<" + typeof value + ">";
  }
  function send(message: unknown): void {
    bridge(stringify(message));
  }

  const client = freeze({
    charge(_request: unknown, options?: unknown): Promise<unknown> {
      if (refused !== null) return Promise.reject(refused);
      const opts = (typeof options === "object" && options !== null ? options : {}) as Record<
        string,
        unknown
      >;
      const call = { idempotencyKey: plain(opts.idempotencyKey), timeoutMs: plain(opts.timeoutMs) };
      const reply = parse(stringify(gateway.charge(call))); // a copy: the repair never gets the reported one

      send({ t: "charge", ...call, reply });
      if (reply.ok) return Promise.resolve(parse(stringify(reply.value)));
      const answer = reply.error;
      const error = assign(new ErrorType(answer.message), {
        name: "GatewayError",
        code: answer.code,
        status: answer.status === null ? undefined : answer.status,
      });
      if (answer.declineCode !== undefined) assign(error, { declineCode: answer.declineCode });
      gatewayErrors.push({ error, token: answer.token });
      if (answer.code === "sandbox_call_limit") refused = error;
      return Promise.reject(error);
    },
    sleep(ms: unknown): Promise<void> {
      sleeps += 1;
      if (sleeps <= maxSleeps) {
        gateway.sleep(plain(ms));
        send({ t: "sleep", ms: plain(ms) });
      }
      return Promise.resolve();
    },
  });

  function tokenOf(error: unknown): number | null {
    for (const entry of gatewayErrors) if (entry.error === error) return entry.token;
    return null;
  }

  function finish(end: Record<string, unknown>): void {
    gateway.end(end);
    send({ t: "end", ...end });
  }

  async function runAll(repair: unknown): Promise<void> {
    for (let index = 0; index < orders.length; index++) {
      gateway.begin(index);
      send({ t: "begin", order: index });
      if (typeof repair !== "function") {
        finish({
          state: "threw",
          error: { code: null, name: "TypeError", message: "the repair defines no function", token: null },
        });
        continue;
      }
      let end: Record<string, unknown>;
      try {
        const value = await repair(client, { ...orders[index] });
        const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
        end = { state: "returned", chargeId: typeof id === "string" ? cut(id) : null };
      } catch (error) {
        const isObject = typeof error === "object" && error !== null;
        end = {
          state: "threw",
          error: {
            code: isObject ? plain((error as { code?: unknown }).code) : null,
            name: cut(isObject ? toText((error as { name?: unknown }).name) : typeof error),
            message: cut(isObject ? toText((error as { message?: unknown }).message) : toText(error)),
            token: tokenOf(error),
          },
        };
      }
      finish(end); // outside the try: a repair that broke the realm's built-ins leaves the run pending
    }
  }

  return freeze({ runAll });
}
