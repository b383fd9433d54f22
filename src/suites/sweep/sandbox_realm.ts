/**
 * The code that runs INSIDE the repair's `node:vm` realm in the sandbox child: the client handed to the
 * repair and the driver that calls the repair once per order. {@link createRealmDriver} is self-contained
 * (it refers to nothing outside its own body and imports nothing), because the child evaluates its source
 * text in the realm; no object of the child's own realm is handed to the repair, only a closure over the
 * channel function (`bridge`, one way: child to host).
 *
 * The client answers from the realm's replica of the gateway (sandbox_gateway.ts) and reports every call,
 * with the answer it gave, to the host, which replays the call on its own gateway and refuses a different
 * answer. What this driver sends is a claim the host checks; a repair that tampers with it can only change
 * what the host sees it do, or fail its check.
 *
 * Messages (one JSON object per `bridge` call): `{t: "begin", order}`, `{t: "charge", idempotencyKey,
 * timeoutMs, reply}`, `{t: "sleep", ms}`, `{t: "end", state: "returned", chargeId}`,
 * `{t: "end", state: "threw", error: {code, name, message, token}}`.
 *
 * @module
 */

/** The part of the realm's gateway replica the driver uses. */
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

/** The driver object left in the realm (frozen, non-writable). */
export interface RealmDriver {
  /** Calls `repair(client, request)` once per order, in order, reporting how each call ended. */
  runAll(repair: unknown): Promise<void>;
}

/**
 * Builds the realm's client and driver over the realm's `gateway` replica. `bridge(message)` sends one
 * JSON line to the host. Limits: strings reported are cut at `maxText` characters;
 * after `maxSleeps` sleeps, or once the host refused a call for the call limit, calls are answered locally
 * (the host has then already recorded what fails the check).
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
      // A copy, so that the value handed to the repair is not the one reported.
      const reply = parse(stringify(gateway.charge(call)));
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
      // Outside the try: if the repair broke this realm's built-ins, the run stays unfinished (pending).
      finish(end);
    }
  }

  return freeze({ runAll });
}
