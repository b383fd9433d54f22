/**
 * The shared input checks: file-system errors mapped once to one-line messages naming the option, path and
 * cause; FIFOs and devices refused before they are opened; new outputs checked before anything is written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../src/errors.ts";
import {
  checkNewOutputPath,
  fsErrorCause,
  inputError,
  readInputFile,
  readInputJson,
  statInputDirectory,
  statInputFile,
} from "../src/fs_input.ts";

const dir = await Deno.makeTempDir({ prefix: "fs_input_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
await Deno.writeTextFile(join(dir, "file.json"), '{"ok": true}');
await Deno.writeFile(join(dir, "latin1.json"), new Uint8Array([0x22, 0xe9, 0x22]));
await Deno.mkdir(join(dir, "sub"));
await Deno.symlink("loop2", join(dir, "loop1"));
await Deno.symlink("loop1", join(dir, "loop2"));
assert.equal((await new Deno.Command("mkfifo", { args: [join(dir, "fifo")] }).output()).code, 0);

async function refused(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, message);
    assert.ok(!error.message.includes("\n"), "one line");
    return true;
  });
}

Deno.test("every file-system error class maps to one cause; other errors are not mapped", () => {
  const cases: [Error, RegExp][] = [
    [new Deno.errors.NotFound("x"), /^not found$/],
    [new Deno.errors.PermissionDenied("x"), /^permission denied$/],
    [new Deno.errors.NotCapable("x"), /Deno's permissions/],
    [new Deno.errors.IsADirectory("x"), /is a directory/],
    [new Deno.errors.NotADirectory("x"), /not a directory/],
    [new Deno.errors.FilesystemLoop("x"), /symbolic link loop/],
    [new Deno.errors.AlreadyExists("x"), /already exists/],
    [Object.assign(new Error("x"), { code: "ENAMETOOLONG" }), /file name too long/],
    [Object.assign(new Error("x"), { code: "EROFS" }), /read-only file system/],
  ];
  for (const [error, cause] of cases) assert.match(fsErrorCause(error) ?? "", cause, error.name);
  assert.equal(fsErrorCause(new TypeError("bug")), undefined);
  const bug = new RangeError("bug");
  assert.equal(inputError(bug, "/p", "--x"), bug);
  const mapped = inputError(new Deno.errors.PermissionDenied("os text"), "/p", "--corpus");
  assert.ok(mapped instanceof UsageError);
  assert.equal(mapped.message, "--corpus /p: permission denied");
});

Deno.test("an input file must be a regular file: directories, FIFOs, devices and loops are named", async () => {
  await refused(
    statInputFile(join(dir, "sub"), "--corpus"),
    /^--corpus .*sub: is a directory, expected a file$/,
  );
  await refused(
    readInputFile(join(dir, "fifo"), "--corpus"),
    /fifo: is a FIFO \(named pipe\), expected a regular file/,
  );
  await refused(readInputFile("/dev/null"), /^\/dev\/null: is a character device/);
  await refused(readInputFile(join(dir, "loop1")), /loop1: symbolic link loop/);
  await refused(readInputFile(join(dir, "missing")), /missing: not found$/);
  await refused(readInputFile(join(dir, "file.json", "x")), /a component of the path is not a directory/);
  await refused(readInputFile(join(dir, "file.json"), "--x", 3), /more than the 3 allowed/);
  const json = await readInputJson(join(dir, "file.json")) as object;
  assert.equal(Object.getPrototypeOf(json), null); // read by the bounded reader: no prototype
  assert.deepEqual({ ...json }, { ok: true });
  await refused(
    readInputJson(join(dir, "latin1.json"), "--gold"),
    /--gold .*latin1\.json: not valid UTF-8 text/,
  );
});

Deno.test("an input directory must be a directory", async () => {
  await refused(
    statInputDirectory(join(dir, "file.json"), "--resume"),
    /--resume .*: is a file, expected a directory/,
  );
  await refused(statInputDirectory(join(dir, "fifo")), /is a FIFO \(named pipe\), expected a directory/);
  await refused(statInputDirectory(join(dir, "loop1")), /symbolic link loop/);
  assert.ok((await statInputDirectory(join(dir, "sub"))).isDirectory);
});

Deno.test("a new output must not exist and must not be below a file; nothing is created by the check", async () => {
  await refused(checkNewOutputPath(join(dir, "file.json"), "--out"), /already exists/);
  await refused(checkNewOutputPath(join(dir, "loop1"), "--out"), /already exists/); // even a dangling link
  await refused(
    checkNewOutputPath(join(dir, "file.json", "a", "b"), "--output"),
    /its parent is not a directory/,
  );
  await refused(
    checkNewOutputPath(join(dir, "no", "such", "x.json"), "--out", { parentMustExist: true }),
    /--out .*x\.json: folder .*no\/such does not exist/,
  );
  await checkNewOutputPath(join(dir, "new", "deeper"), "--output");
  await assert.rejects(Deno.lstat(join(dir, "new")), Deno.errors.NotFound);
});
