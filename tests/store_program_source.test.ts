/**
 * The program-source blob (store/program_source.ts): gzip of the file list and the files, the same bytes for
 * the same files, read back equal by the program and by the auditor (scripts/audit_run.py), the code's string
 * literals not plain text in it; older runs' plain `@1` blobs still read; a gzip bomb or a damaged blob refused.
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { assetPath } from "../src/assets.ts";
import { programSourceBlob } from "../src/program_identity.ts";
import { sha256Hex } from "../src/store/hash.ts";
import {
  MAX_PROGRAM_SOURCE_BYTES,
  parseProgramSource,
  PROGRAM_SOURCE_FORMAT_PLAIN,
  programSourceBytes,
  type SourceFile,
} from "../src/store/program_source.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const file = (path: string, text: string): SourceFile => ({
  path,
  sha256: sha256Hex(encode(text)),
  bytes: encode(text),
});

/** What the auditor's reader makes of `blob`: its format and files ([path, sha256, size]), or its error. */
async function audited(blob: Uint8Array): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "program_source_" });
  try {
    await Deno.writeFile(`${dir}/blob`, blob);
    const script = [
      "import hashlib, json, sys",
      `sys.path.insert(0, ${JSON.stringify(assetPath("scripts"))})`,
      "import audit_run",
      "try:",
      "    data, form = audit_run.unpack_program_source(open(sys.argv[1], 'rb').read())",
      "    n = data.index(b'\\n')",
      "    print(form, json.loads(data[:n])['format'], len(data) - n - 1, hashlib.sha256(data[n + 1:]).hexdigest())",
      "except ValueError as error:",
      "    print('error', error)",
    ].join("\n");
    const out = await new Deno.Command("python3", { args: ["-c", script, `${dir}/blob`] }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the blob is gzip, the same for the same files, and reads back each file equal", async () => {
  const files = [
    file("src/b.ts", 'export const MARK = "[REDACTED]";\n'),
    file("main.ts", "import './src/b.ts';\n"),
  ];
  const blob = programSourceBytes(files);
  assert.deepEqual([blob[0], blob[1]], [0x1f, 0x8b]);
  assert.deepEqual(programSourceBytes([...files].reverse()), blob);
  assert.ok(!new TextDecoder().decode(blob).toLowerCase().includes("[redacted]"));
  const read = parseProgramSource(blob);
  assert.deepEqual(read.map((f) => f.path), ["main.ts", "src/b.ts"]);
  assert.deepEqual(
    read.map((f) => new TextDecoder().decode(f.bytes)),
    [files[1], files[0]].map((f) => new TextDecoder().decode(f.bytes)),
  );
  const body = encode("import './src/b.ts';\n" + 'export const MARK = "[REDACTED]";\n');
  assert.equal(
    await audited(blob),
    `compaction-bench/program-source@2 compaction-bench/program-source@2 ${body.length} ${sha256Hex(body)}`,
  );
});

Deno.test("the program's own blob holds its source files, none of the code as plain text", () => {
  const blob = programSourceBlob();
  assert.equal(programSourceBlob(), blob); // built once per process
  const text = new TextDecoder().decode(blob).toLowerCase();
  assert.ok(!text.includes("[redacted]") && !text.includes("export function"));
  const hash = parseProgramSource(blob).find((f) => f.path === "src/store/hash.ts");
  assert.deepEqual(hash?.bytes, Deno.readFileSync(assetPath("src/store/hash.ts")));
});

Deno.test("an older run's plain @1 blob still reads, by the program and by the auditor", async () => {
  const body = 'export const MARK = "[REDACTED]";\n';
  const head = JSON.stringify({
    format: PROGRAM_SOURCE_FORMAT_PLAIN,
    files: [["src/a.ts", sha256Hex(encode(body)), encode(body).length]],
  });
  const blob = encode(`${head}\n${body}`);
  const [read] = parseProgramSource(blob);
  assert.equal(read.path, "src/a.ts");
  assert.equal(new TextDecoder().decode(read.bytes), body);
  assert.equal(
    await audited(blob),
    `${PROGRAM_SOURCE_FORMAT_PLAIN} ${PROGRAM_SOURCE_FORMAT_PLAIN} ${encode(body).length} ${
      sha256Hex(encode(body))
    }`,
  );
  // A plain layout that names @2, or gzip that names @1, is not a blob of either format.
  const mixed = encode(`${head.replace("@1", "@2")}\n${body}`);
  assert.throws(() => parseProgramSource(mixed), /not a compaction-bench\/program-source@1 blob/);
  assert.throws(
    () => parseProgramSource(new Uint8Array(gzipSync(blob))),
    /not a compaction-bench\/program-source@2 blob/,
  );
});

Deno.test("a gzip bomb or a damaged blob is refused, by the program and by the auditor", async () => {
  // Gzip members back to back (both readers take them all), one MiB of zeros each: one more than the limit.
  const member = new Uint8Array(gzipSync(new Uint8Array(1024 ** 2)));
  const bomb = new Uint8Array(member.length * (MAX_PROGRAM_SOURCE_BYTES / 1024 ** 2 + 1));
  for (let at = 0; at < bomb.length; at += member.length) bomb.set(member, at);
  assert.throws(() => parseProgramSource(bomb), /unpacks to more than 67108864 bytes/);
  assert.match(await audited(bomb), /^error .*unpacks to more than 67108864 bytes/);
  const good = programSourceBytes([file("main.ts", "x\n")]);
  for (const damaged of [good.subarray(0, good.length - 4), new Uint8Array([...good, 1, 2, 3])]) {
    assert.throws(() => parseProgramSource(damaged), /not valid gzip/);
    assert.match(await audited(damaged), /^error .*not valid gzip/);
  }
});
