/**
 * Reading a provider's body up to its bound over real loopback HTTP: a body of fetch that declares its length
 * within the bound is read whole at once, anything else incrementally and cut off past the bound — a declared
 * length over the bound, a compressed body (its declared length is the compressed one), a body built in code
 * whatever it declares. A body cut short fails the same way on both paths.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { declaredBodyLength, readBoundedBody } from "../src/models/response_body.ts";

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
