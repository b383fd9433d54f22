/**
 * A real headless Chromium (Debian's `chromium`) driven over the DevTools protocol from Deno's own
 * WebSocket: no npm browser package, no downloads. {@link findChromium} says whether a browser is present;
 * tests that need one print a loud banner and pass without it (see the explorer test).
 *
 * Flags: those that work on this machine kind (headless, no sandbox as root, no GPU, no QUIC, no background
 * networking, component updates or sync) and a fresh user-data directory per launch.
 *
 * @module
 */

/** Candidate browser paths (first that exists wins); `CHROMIUM_BIN` overrides. */
const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser binary, or null when none is installed. */
export function findChromium(): string | null {
  const given = Deno.env.get("CHROMIUM_BIN");
  for (const path of given ? [given] : CANDIDATES) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return null;
}

/** A page in a launched browser. */
export interface BrowserPage {
  /** Evaluates an expression (awaiting a returned promise) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Stops the browser and removes its profile. */
  close(): Promise<void>;
}

/** Launches the browser and opens `url` in a new page; resolves once the page has loaded. */
export async function openPage(binary: string, url: string): Promise<BrowserPage> {
  const profile = await Deno.makeTempDir({ prefix: "chromium-profile-" });
  const child = new Deno.Command(binary, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      `--user-data-dir=${profile}`,
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const wsUrl = await devtoolsUrl(child.stderr);
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error("could not connect to the browser's DevTools socket"));
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`DevTools: ${message.error.message}`));
    else waiter.resolve(message.result);
  };
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: (v) => resolve(v as Record<string, unknown>), reject });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
    sessionId: string;
  };
  await send("Page.enable", {}, sessionId);
  await send("Page.navigate", { url }, sessionId);
  const evaluate = async <T>(expression: string): Promise<T> => {
    const out = await send(
      "Runtime.evaluate",
      { expression, awaitPromise: true, returnByValue: true },
      sessionId,
    ) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (out.exceptionDetails) {
      throw new Error(
        `page error: ${out.exceptionDetails.exception?.description ?? out.exceptionDetails.text}`,
      );
    }
    return out.result.value as T;
  };
  for (let i = 0; i < 200; i++) {
    const state = await evaluate<string>("document.readyState + ' ' + location.href");
    if (state.startsWith("complete") && !state.includes("about:blank")) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    evaluate,
    close: async () => {
      ws.close();
      try {
        child.kill("SIGTERM");
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
      }
      await child.status;
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** Reads the browser's stderr until it names its DevTools WebSocket, then keeps draining it. */
async function devtoolsUrl(stderr: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`browser exited before it listened:\n${seen.slice(-2000)}`);
    seen += value;
    const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
    if (m) {
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })();
      return m[1];
    }
  }
}
