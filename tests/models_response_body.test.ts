/**
 * Reading a provider's body up to its bound over real loopback HTTP: a body of fetch that declares its length
 * within the bound is read whole at once, anything else incrementally and cut off past the bound — a declared
 * length over the bound, a compressed body (its declared length is the compressed one), a body built in code
 * whatever it declares. A body cut short fails the same way on both paths. A body is read as its strict UTF-8 text
 * and scanned for secrets as its lossy one, whether ASCII (decoded once) or not.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { parseJson } from "../src/core/json_read.ts";
import { checkBody, declaredBodyLength, readBoundedBody } from "../src/models/response_body.ts";
import { random } from "./helpers/random.ts";

/** Serves every request with `handle` on an ephemeral loopback port while `body` runs. */
async function withServer<T>(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const BYTES = new TextEncoder().encode(JSON.stringify({ text: "é".repeat(5000), n: 1 }));

Deno.test("a body of fetch declaring its length within the bound is read whole, byte for byte", async () => {
  await withServer((_, response) => {
    response.writeHead(200, { "content-length": String(BYTES.length) });
    response.end(BYTES);
  }, async (url) => {
    const response = await fetch(url);
    assert.equal(declaredBodyLength(response.headers), BYTES.length);
    const read = await readBoundedBody(response, BYTES.length);
    assert.equal(read.complete, true);
    assert.deepEqual(read.bytes, BYTES);
  });
});

Deno.test("a declared length over the bound is cut off at the bound", async () => {
  await withServer((_, response) => {
    response.writeHead(200, { "content-length": String(BYTES.length) });
    response.end(BYTES);
  }, async (url) => {
    const read = await readBoundedBody(await fetch(url), 1000);
    assert.equal(read.complete, false);
    assert.deepEqual(read.bytes, BYTES.subarray(0, 1000));
  });
});

Deno.test("a compressed body is read incrementally: its small declared length does not let it past the bound", async () => {
  const inflated = new Uint8Array(4 << 20);
  const compressed = gzipSync(inflated);
  await withServer((_, response) => {
    response.writeHead(200, {
      "content-encoding": "gzip",
      "content-length": String(compressed.length),
    });
    response.end(compressed);
  }, async (url) => {
    const response = await fetch(url);
    assert.equal(response.headers.get("content-length"), String(compressed.length));
    assert.equal(declaredBodyLength(response.headers), undefined);
    const read = await readBoundedBody(response, 64 * 1024);
    assert.equal(read.complete, false);
    assert.equal(read.bytes.byteLength, 64 * 1024);
  });
});

Deno.test("a body cut short fails with the same error whether its length was declared or not", async () => {
  const messages: string[] = [];
  for (const declared of [true, false]) {
    await withServer((request, response) => {
      response.writeHead(200, declared ? { "content-length": String(BYTES.length) } : {});
      response.write(BYTES.subarray(0, BYTES.length >> 1));
      setTimeout(() => request.socket.destroy(), 20);
    }, async (url) => {
      const response = await fetch(url);
      assert.equal(declaredBodyLength(response.headers) !== undefined, declared);
      await assert.rejects(readBoundedBody(response, 1 << 20), (error) => {
        assert.ok(error instanceof TypeError);
        messages.push(error.message);
        return true;
      });
    });
  }
  assert.equal(messages[0], messages[1]);
});

Deno.test("a body built in code is read incrementally whatever length it declares", async () => {
  let pulled = 0;
  const chunk = new Uint8Array(1 << 16);
  const flood = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= 8 << 20) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const response = new Response(flood, { headers: { "content-length": "10" } });
  const read = await readBoundedBody(response, 100_000);
  assert.equal(read.complete, false);
  assert.equal(read.bytes.byteLength, 100_000);
  assert.ok(pulled < 1 << 20, `pulled ${pulled} bytes`);
});

Deno.test("only a plain decimal content-length without a content or transfer encoding is a declared length", () => {
  const length = (headers: Record<string, string>) => declaredBodyLength(new Headers(headers));
  assert.equal(length({ "content-length": "42" }), 42);
  assert.equal(length({ "content-length": "0" }), 0);
  assert.equal(length({}), undefined);
  assert.equal(length({ "content-length": "4e2" }), undefined);
  assert.equal(length({ "content-length": "-1" }), undefined);
  assert.equal(length({ "content-length": "42, 42" }), undefined);
  assert.equal(length({ "content-length": "42", "content-encoding": "br" }), undefined);
  assert.equal(length({ "content-length": "42", "transfer-encoding": "chunked" }), undefined);
});

/** Byte pieces a body is made of: JSON, ASCII control characters, 2 to 4 byte characters, byte order marks, bad UTF-8. */
const PIECES: number[][] = [
  [...new TextEncoder().encode('{"a":"b","n":[1,2.5,null]}')],
  [...new TextEncoder().encode('"plain ascii text"')],
  [...new TextEncoder().encode("[1, {}]")],
  [...new TextEncoder().encode('"é€😀"')],
  [0x09, 0x0a, 0x20], // JSON whitespace
  [0x00, 0x01, 0x7f], // control characters
  [0xef, 0xbb, 0xbf], // a byte order mark
  [0xef, 0xbb], // half of one
  [0xff],
  [0xc3], // a lead byte alone
  [0x80], // a continuation byte alone
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xc0, 0xaf], // an overlong encoding
  [0xf0, 0x9f, 0x98], // a 4-byte character cut short
];

Deno.test("checkBody reads a body as its strict UTF-8 text, ASCII or not, and scans its lossy text", () => {
  const lossy = new TextDecoder();
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const next = random(33);
  let ascii = 0;
  let parsed = 0;
  for (let i = 0; i < 20_000; i++) {
    const bytes: number[] = [];
    const count = Math.floor(next() * 4);
    // Most bodies are ASCII pieces only; the rest draw from every piece.
    const pieces = next() < 0.5 ? 6 : PIECES.length;
    for (let p = 0; p < count; p++) bytes.push(...PIECES[Math.floor(next() * pieces)]);
    const body = new Uint8Array(bytes);
    if (body.every((byte) => byte < 0x80)) ascii++;
    // A non-2xx body comes back as the text the secret scan read.
    const failed = checkBody({ bytes: body, complete: true }, 1 << 20, 500, []);
    assert.equal(failed.kind === "status" && failed.text, lossy.decode(body), `bytes ${bytes}`);
    // A 2xx body is parsed from its strict text: not UTF-8 is refused, else it is JSON or not as that text is.
    const checked = checkBody({ bytes: body, complete: true }, 1 << 20, 200, []);
    let text: string | null = null;
    try {
      text = strict.decode(body);
    } catch {
      // not strict UTF-8
    }
    if (text === null) {
      assert.ok(checked.kind === "failed" && checked.error.includes("not valid UTF-8"), `bytes ${bytes}`);
      continue;
    }
    let json: unknown;
    try {
      json = parseJson(text, { keepLoneSurrogates: true });
    } catch {
      assert.equal(checked.kind, "retry", `bytes ${bytes}`);
      continue;
    }
    parsed++;
    if (checked.kind === "ok") assert.deepEqual(checked.json, json, `bytes ${bytes}`);
    else assert.ok(checked.kind === "failed" && checked.error.includes("not I-JSON"), `bytes ${bytes}`);
  }
  assert.ok(ascii > 5_000 && parsed > 2_000, `${ascii} ASCII bodies, ${parsed} parsed`);
});
