/**
 * `bench/tokens.ts`: tokens per second of our encoder (`@huggingface/tokenizers` in Deno) against the Rust
 * `tokenizers` library (through Python) on the same HotpotQA-like text, in the same run. Both are timed
 * warm (one untimed encode first), best of `--repeats` rounds alternating ours and Rust's, encode only (no file reading, no tokenizer build).
 *
 *   deno run --allow-read --allow-run --allow-env bench/tokens.ts [--tokens N] [--repeats R]
 *       [--tokenizer DIR] [--python EXE] [--pythonpath DIR]
 *
 * Python is only the yardstick: `--pythonpath` (default `$PYTHONPATH`, else /tmp/py when it exists) must
 * make `tokenizers` importable (`pip install --target /tmp/py tokenizers`); without it the Rust side is
 * skipped with a message. Target: our time at most 1.5 times Rust's.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { parseCommand } from "../src/cli/args.ts";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { random } from "../tests/helpers/random.ts";

/** Our time may be at most this multiple of the Rust tokenizer's. */
export const TARGET_RATIO = 1.5;

const FIRST = [
  "Ada",
  "Émile",
  "Zhang",
  "Chinua",
  "Marie",
  "Søren",
  "José",
  "Nikola",
  "Akira",
  "Grace",
  "Ludwig",
];
const LAST = ["Lovelace", "Zola", "Yimou", "Achebe", "Curie", "Kierkegaard", "Saramago", "Tesla", "Kurosawa"];
const PLACES = [
  "Lyon",
  "Marseille",
  "Kraków",
  "São Paulo",
  "Reykjavík",
  "Kyoto",
  "Lagos",
  "Toronto",
  "Ōsaka",
];
const NOUNS = [
  "album",
  "band",
  "novel",
  "film",
  "railway",
  "museum",
  "university",
  "magazine",
  "club",
  "treaty",
  "bridge",
  "season",
  "census",
  "village",
  "company",
  "series",
  "award",
  "church",
  "island",
  "battle",
];
const VERBS = [
  "founded",
  "released",
  "published",
  "directed",
  "won",
  "opened",
  "described",
  "recorded",
  "joined",
];

/**
 * English prose in the manner of HotpotQA paragraphs (a title, then sentences with names, places, years,
 * figures and punctuation), deterministic for a seed, of at least `chars` characters.
 */
export function hotpotLikeText(chars: number, seed = 20261016): string {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const person = `${pick(FIRST)} ${pick(LAST)}`;
    const title = `${pick(PLACES)} ${pick(NOUNS)}`.replace(/^\w/, (c) => c.toUpperCase());
    const sentences = [
      `${title}\nThe ${pick(NOUNS)} of ${pick(PLACES)} was ${pick(VERBS)} by ${person} in ${
        1800 + Math.floor(next() * 224)
      }.`,
      `It had ${Math.floor(next() * 90_000).toLocaleString("en-US")} visitors (${
        (next() * 100).toFixed(1)
      }% more than in ${1950 + Math.floor(next() * 70)}), according to the ${pick(NOUNS)}'s records.`,
      `"${pick(VERBS)[0].toUpperCase()}${pick(VERBS).slice(1)} twice," ${person.split(" ")[1]} said; ` +
      `the ${pick(NOUNS)} — later renamed ${pick(PLACES)} ${pick(NOUNS)} — ${pick(VERBS)} No. ${
        Math.floor(next() * 40) + 1
      } on the charts!`,
      `Is the ${pick(NOUNS)} in ${pick(PLACES)} older than the one in ${pick(PLACES)}? ` +
      `Yes: ${Math.floor(next() * 300)} years, ${Math.floor(next() * 12)} months.`,
    ];
    const paragraph = sentences.join(" ") + "\n\n";
    parts.push(paragraph);
    length += paragraph.length;
  }
  return parts.join("");
}

/** Python side: loads the Rust tokenizer, then encodes the text once per input line, printing one JSON line. */
const PYTHON_TIMER = `
import hashlib, json, sys, time
import tokenizers
tok = tokenizers.Tokenizer.from_file(sys.argv[1])
text = open(sys.argv[2], encoding="utf-8").read()
ids = tok.encode(text, add_special_tokens=False).ids
digest = hashlib.sha256(json.dumps(ids, separators=(",", ":")).encode()).hexdigest()
print(json.dumps({"tokens": len(ids), "ids_sha256": digest, "version": tokenizers.__version__}), flush=True)
for _ in sys.stdin:
    start = time.perf_counter()
    ids = tok.encode(text, add_special_tokens=False).ids
    print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)
`;

const ReadySchema = z.object({
  tokens: z.number().int().nonnegative(),
  ids_sha256: z.string(),
  version: z.string(),
});
const TimingSchema = z.object({ seconds: z.number().positive() });

const OptionsSchema = z.object({
  help: z.boolean().optional(),
  tokens: z.coerce.number().int().positive().default(200_000),
  repeats: z.coerce.number().int().positive().max(100).default(5),
  tokenizer: z.string().default(DEFAULT_TOKENIZER_DIR),
  python: z.string().default("python3"),
  pythonpath: z.string().optional(),
});

function defaultPythonPath(): string | undefined {
  const fromEnv = Deno.env.get("PYTHONPATH");
  if (fromEnv) return fromEnv;
  try {
    return Deno.statSync("/tmp/py/tokenizers").isDirectory ? "/tmp/py" : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** The Rust tokenizer in a Python process kept alive, so its timings interleave with ours. */
class RustTimer {
  readonly ready: z.infer<typeof ReadySchema>;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: AsyncIterator<string>;

  private constructor(
    child: Deno.ChildProcess,
    lines: AsyncIterator<string>,
    ready: z.infer<typeof ReadySchema>,
  ) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#lines = lines;
    this.ready = ready;
  }

  /** Starts the Python side; returns a reason string instead when it cannot run. */
  static async start(
    python: string,
    pythonPath: string | undefined,
    tokenizerJson: string,
    textPath: string,
  ): Promise<RustTimer | string> {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(python, {
        args: ["-c", PYTHON_TIMER, tokenizerJson, textPath],
        env: pythonPath ? { PYTHONPATH: pythonPath } : {},
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return `${python} not found`;
      throw error;
    }
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
      [Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) {
      await child.stdin.close();
      const status = await child.status;
      const stderr = (await new Response(child.stderr).text()).trim().split("\n").at(-1) ?? "";
      return stderr.includes("No module named 'tokenizers'")
        ? `Python tokenizers is not importable (PYTHONPATH=${pythonPath ?? ""}); ` +
          "install it with: pip install --target /tmp/py tokenizers"
        : `${python} exited with ${status.code}: ${stderr}`;
    }
    return new RustTimer(child, lines, ReadySchema.parse(JSON.parse(first.value)));
  }

  /** Encodes the text once on the Rust side and returns the seconds it took. */
  async time(): Promise<number> {
    await this.#writer.write(new TextEncoder().encode("\n"));
    const line = await this.#lines.next();
    if (line.done) throw new Error("the Python timer exited early");
    return TimingSchema.parse(JSON.parse(line.value)).seconds;
  }

  /** Ends the Python process (closing its input) and waits for it. */
  async close(): Promise<void> {
    await this.#writer.close();
    await this.#child.stderr.cancel();
    await this.#child.status;
  }
}

function splitLines(): TransformStream<string, string> {
  let buffer = "";
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") controller.enqueue(line);
    },
    flush(controller) {
      if (buffer.trim() !== "") controller.enqueue(buffer);
    },
  });
}

/** Runs the benchmark; prints tokens/s of both encoders and the ratio. Returns the exit code (0). */
export async function tokensBench(argv: string[]): Promise<number> {
  const { options } = parseCommand("bench/tokens", argv, {
    tokens: { type: "string" },
    repeats: { type: "string" },
    tokenizer: { type: "string" },
    python: { type: "string" },
    pythonpath: { type: "string" },
  }, OptionsSchema);
  if (options.help) {
    console.log(
      "Usage: bench/tokens.ts [--tokens N] [--repeats R] [--tokenizer DIR] [--python EXE] [--pythonpath DIR]",
    );
    return 0;
  }
  let started = performance.now();
  const counter = await loadTokenCounter(options.tokenizer);
  const coldLoad = performance.now() - started;
  started = performance.now();
  await loadTokenCounter(options.tokenizer);
  const warmLoad = performance.now() - started;
  console.log(
    `tokenizer load: first ${coldLoad.toFixed(0)} ms, second ${
      warmLoad.toFixed(1)
    } ms (target: second < 100 ms)`,
  );
  // About 3.1 characters per token (Qwen3) for this prose; the exact count is printed.
  const text = hotpotLikeText(Math.round(options.tokens * 3.1));
  const textPath = await Deno.makeTempFile({ prefix: "bench_tokens_", suffix: ".txt" });
  await Deno.writeTextFile(textPath, text);
  const pythonPath = options.pythonpath ?? defaultPythonPath();
  const rust = await RustTimer.start(options.python, pythonPath, `${counter.dir}/tokenizer.json`, textPath);
  try {
    started = performance.now();
    counter.countText(text);
    const coldCount = performance.now() - started;
    started = performance.now();
    counter.countText(text);
    const warmCount = performance.now() - started;
    console.log(
      `count: first ${coldCount.toFixed(1)} ms, cached ${
        warmCount.toFixed(2)
      } ms (target: cached < first / 5)`,
    );
    let ids = counter.encode(text); // warm-up, untimed (Python warmed up before saying it is ready)
    let ours = Infinity;
    let theirs = Infinity;
    for (let i = 0; i < options.repeats; i++) {
      const started = performance.now();
      ids = counter.encode(text);
      ours = Math.min(ours, (performance.now() - started) / 1000);
      if (typeof rust !== "string") theirs = Math.min(theirs, await rust.time());
    }
    console.log(
      `text: ${text.length} characters, ${ids.length} tokens (${counter.name}), best of ${options.repeats}`,
    );
    console.log(
      `ours (@huggingface/tokenizers, Deno): ${ours.toFixed(3)} s, ${Math.round(ids.length / ours)} tokens/s`,
    );
    if (typeof rust === "string") {
      console.log(`rust: skipped: ${rust}`);
      return 0;
    }
    const digest = createHash("sha256").update(JSON.stringify(ids)).digest("hex");
    const same = rust.ready.tokens === ids.length && rust.ready.ids_sha256 === digest;
    console.log(
      `rust (tokenizers ${rust.ready.version}, Python): ${theirs.toFixed(3)} s, ${
        Math.round(rust.ready.tokens / theirs)
      } tokens/s; ids ${same ? "identical" : "DIFFER"}`,
    );
    const ratio = ours / theirs;
    console.log(
      `ratio (our time / Rust time): ${ratio.toFixed(2)}x; target <= ${TARGET_RATIO}x: ${
        ratio <= TARGET_RATIO ? "met" : "NOT met"
      }`,
    );
    return 0;
  } finally {
    if (typeof rust !== "string") await rust.close();
    await Deno.remove(textPath);
  }
}

if (import.meta.main) Deno.exit(await tokensBench(Deno.args));
