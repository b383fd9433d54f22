import assert from "node:assert/strict";
import { join } from "node:path";
import { generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { loadHotpot } from "../src/data/hotpot_load.ts";
import { runCli } from "./helpers/spawn.ts";

Deno.test("hotpot generate writes the generator's records as Parquet or official JSON, the same bytes each time", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const expected = generateHotpotRecords(12, "gen-test");
    for (const name of ["a.parquet", "b.parquet", "a.json"]) {
      const out = await runCli([
        "hotpot",
        "generate",
        "--records",
        "12",
        "--seed",
        "gen-test",
        "--out",
        join(tmp, name),
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /12 records/);
      assert.deepEqual(await loadHotpot(join(tmp, name)), expected);
    }
    assert.deepEqual(
      await Deno.readFile(join(tmp, "a.parquet")),
      await Deno.readFile(join(tmp, "b.parquet")),
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("hotpot generate writes with --output as every command does (and --out, the same option)", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const a = await runCli(["hotpot", "generate", "--records", "4", "--output", join(tmp, "a.json")]);
    const b = await runCli(["hotpot", "generate", "--records", "4", "--out", join(tmp, "b.json")]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual(await Deno.readFile(join(tmp, "a.json")), await Deno.readFile(join(tmp, "b.json")));
    const help = await runCli(["hotpot", "generate", "--help"]);
    assert.match(help.stdout, /hotpot generate --records N --output FILE/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("hotpot generate refuses an existing file, an unknown extension and missing options, writing nothing", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const existing = join(tmp, "x.parquet");
    await Deno.writeTextFile(existing, "keep");
    const cases: [string[], RegExp][] = [
      [["--records", "3", "--output", existing], /--output .*already exists/],
      [["--records", "3", "--out", existing], /already exists/],
      [["--records", "3", "--output", join(tmp, "x.csv")], /unknown file type/],
      [
        ["--records", "3", "--output", join(tmp, "a.json"), "--out", join(tmp, "b.json")],
        /same option; give one/,
      ],
      [["--records", "0", "--out", join(tmp, "y.json")], /--records/],
      [["--out", join(tmp, "y.json")], /--records N is required/],
      [["--records", "3"], /--output FILE is required/],
      [["--records", "3", "--out", join(tmp, "no", "dir.json")], /not found/],
    ];
    for (const [args, message] of cases) {
      const out = await runCli(["hotpot", "generate", ...args]);
      assert.equal(out.code, 2, args.join(" "));
      assert.match(out.stderr, message);
    }
    assert.equal(await Deno.readTextFile(existing), "keep");
    assert.deepEqual([...Deno.readDirSync(tmp)].map((e) => e.name), ["x.parquet"]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
