/**
 * What keeping the program's source in every run costs (store/program_source.ts): the blob's size (gzip) against
 * the files', the CPU (user + system, not wall time: the machine is shared) of building it from the files the
 * identity read (packing and gzip: once per process, every later run of the process reuses it), of storing it
 * per run (hash, write, fsync) and of verify's check of it (gunzip, parse, hash every file).
 *
 * @module
 */
import { cpuUsage } from "node:process";
import { programIdentity, programSourceBlob } from "../src/program_identity.ts";
import { programSourceBytes } from "../src/store/program_source.ts";
import { sha256Hex } from "../src/store/hash.ts";
import { programSourceProblems } from "../src/store/program_source.ts";

/** CPU milliseconds (user + system) of this process since `from`. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const used = cpuUsage(from);
  return (used.user + used.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

let started = cpuUsage();
const identity = await programIdentity();
const identityMs = cpuMs(started);
started = cpuUsage();
const blob = programSourceBlob();
const firstBuildMs = cpuMs(started);
const { parseProgramSource } = await import("../src/store/program_source.ts");
const files = parseProgramSource(blob);

const build: number[] = [];
const store: number[] = [];
const check: number[] = [];
const dir = await Deno.makeTempDir({ prefix: "bench_program_source_" });
try {
  for (let i = 0; i < 9; i++) {
    let t = cpuUsage();
    const bytes = programSourceBytes(files);
    build.push(cpuMs(t));
    t = cpuUsage();
    const hash = sha256Hex(bytes);
    using file = await Deno.open(`${dir}/${hash}.${i}`, { write: true, createNew: true });
    await file.write(bytes);
    await file.sync();
    store.push(cpuMs(t));
    t = cpuUsage();
    const problems = programSourceProblems(bytes, identity.source_hash);
    check.push(cpuMs(t));
    if (problems.length > 0) throw new Error(JSON.stringify(problems));
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
const unpacked = files.reduce((sum, file) => sum + file.bytes.length, 0);
console.log(
  `program source blob: ${blob.length} bytes (${
    (blob.length / 1024 / 1024).toFixed(2)
  } MiB) gzip of ${files.length} files, ${unpacked} bytes (${(unpacked / 1024 / 1024).toFixed(2)} MiB)`,
);
console.log(
  `CPU: identity read (existing, cold) ${
    identityMs.toFixed(1)
  } ms; the blob's build (pack + gzip, once per process) ${firstBuildMs.toFixed(1)} ms`,
);
console.log(
  `median of 9: a rebuild ${
    median(build).toFixed(1)
  } ms (not per run: built once per process); per run hash+write+fsync ${median(store).toFixed(1)} ms; ` +
    `verify's check ${median(check).toFixed(1)} ms`,
);
